#!/bin/sh
# perf/results/s5r/model.py LIMITS.csv COMPARE.csv... -- h11a's 2-rank model with the reduce
# split balanced by claimed pieces (s5r); kept so the commands in RESULTS still run.
exec python3 "$(dirname "$0")/../h11a/model.py" --balanced "$@"
