#!/bin/sh
# sum.py FILES: medians over launches per build and size of the ab.sh output -- s5o's summary, unchanged
exec python3 "$(dirname "$0")/../s5o/s5o_sum.py" "$@"
