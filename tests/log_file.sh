#!/bin/bash
# tests/log_file.sh — PLX_LOG_FILE and the log line prefix:
#   2 ranks on 2 simulated nodes with PLX_LOG=debug and
#   PLX_LOG_FILE=<dir>/plx-%h-%r-%p.log: one file per rank, named with the
#   host, rank and pid; the ranks' lines are in them (not on stderr), each
#   prefixed "plexus[rank R@host]" as the job spans nodes; on one node the
#   prefix stays "plexus[rank R]"; a pattern with an unknown % sequence makes
#   plx_init fail with a message naming PLX_LOG_FILE.
set -u
top_builddir=${top_builddir:-$(cd "$(dirname "$0")/.." && pwd)}
run=$top_builddir/tools/plexusrun
prog=$top_builddir/tests/mr/outparam_check
tmp=$(mktemp -d /tmp/plx-logfile.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "  FAIL: $*"; fail=1; }
host=$(hostname); host=${host%%.*}

echo "+ PLX_LOG=debug PLX_LOG_FILE=$tmp/plx-%h-%r-%p.log plexusrun -n 2 --nodes 2 outparam_check calls"
PLX_LOG=debug PLX_LOG_FILE="$tmp/plx-%h-%r-%p.log" "$run" -n 2 --nodes 2 --timeout 120 "$prog" calls \
    >"$tmp/out" 2>&1 || { cat "$tmp/out"; bad "the job failed"; }
for r in 0 1; do
    f=$(ls "$tmp"/plx-"$(hostname)"-$r-*.log 2>/dev/null | head -1)
    if [ -z "$f" ]; then bad "no log file for rank $r"; continue; fi
    case "$(basename "$f")" in plx-*-$r-[0-9]*.log) ;; *) bad "bad name $f";; esac
    grep -q "^plexus\[rank $r@$host\] debug: " "$f" || bad "rank $r: no 'plexus[rank $r@$host] debug:' line in $f"
done
grep -q "^plexus\[rank [01]" "$tmp/out" && bad "rank lines still on stderr with PLX_LOG_FILE"
[ $fail = 0 ] && echo "  ok: one file per rank, host in the prefix"

echo "+ PLX_LOG=debug plexusrun -n 2 outparam_check calls (one node)"
PLX_LOG=debug "$run" -n 2 --timeout 120 "$prog" calls >"$tmp/out1" 2>&1 || bad "the one-node job failed"
grep -q "^plexus\[rank 0\] debug: " "$tmp/out1" || bad "one node: no 'plexus[rank 0] debug:' line"
grep -q "^plexus\[rank [01]@" "$tmp/out1" && bad "one node: host in the prefix"

echo "+ PLX_LOG_FILE='$tmp/x-%q' outparam_check calls"
if PLX_LOG_FILE="$tmp/x-%q" "$run" -n 1 --timeout 60 "$prog" calls >"$tmp/out2" 2>&1; then
    bad "a bad PLX_LOG_FILE pattern was accepted"
fi
grep -q "PLX_LOG_FILE='$tmp/x-%q'" "$tmp/out2" || { cat "$tmp/out2"; bad "no message naming PLX_LOG_FILE and its value"; }

[ $fail = 0 ] && echo "PASS: log_file"
exit $fail
