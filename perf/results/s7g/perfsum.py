#!/bin/sh
# s5g's perfsum.py, unchanged (s7g ran it on its own files)
exec python3 "$(dirname "$0")/../s5g/perfsum.py" "$@"
