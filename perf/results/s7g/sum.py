#!/bin/sh
# s5g's sum.py with the busy-compute rows too (s7g)
exec python3 "$(dirname "$0")/../s5g/sum.py" --busy "$@"
