#!/bin/sh
# perf/results/s9o/sum.py FILE...: s8o's overlap summary, the same script; kept so the commands in RESULTS still run.
exec python3 "$(dirname "$0")/../s8o/sum.py" "$@"
