#!/bin/sh
# perf/results/s9x/summ.py FILE...: s8x's summary (it skips percall's "pc" rows), kept so the commands in RESULTS still run.
exec python3 "$(dirname "$0")/../s8x/summ.py" "$@"
