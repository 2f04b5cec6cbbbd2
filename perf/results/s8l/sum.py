#!/bin/sh
# sum.py (perf/results/s8l): s7l's summary of the same layer A/B files, with s8l's tags
# (ab-base-R.txt, ab-new-R.txt); run it in the folder of those files.
exec python3 "$(dirname "$0")/../s7l/sum.py" base new s8l
