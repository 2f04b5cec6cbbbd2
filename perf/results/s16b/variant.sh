#!/usr/bin/env bash
# variant.sh SRC DST OBJ...: copy the built tree SRC to DST and rebuild only
# the libtool objects OBJ (paths relative to the tree, .lo) with 64-byte
# function and loop-head alignment, then relink libplexus.  Everything else
# keeps SRC's objects, so DST's libplexus differs from SRC's only in the
# alignment of OBJ's code (and where that moves the code after it).
set -eu
src=$1; dst=$2; shift 2
rm -rf "$dst"
cp -a "$src" "$dst"
cd "$dst"
for o in "$@"; do
    b=${o%.lo}; d=$(dirname "$o"); n=$(basename "$b")
    rm -f "$o" "$d/.libs/$n.o" "$d/$n.o"
done
make CFLAGS="-g -falign-functions=64 -falign-loops=64 -falign-jumps=16" libplexus.la > variant.log 2>&1
grep -c ' CC ' variant.log || true
