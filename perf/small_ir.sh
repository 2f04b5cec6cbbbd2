#!/bin/bash
# perf/small_ir.sh -- instructions per call of the small collectives at 2
# ranks, a measure the machine's load does not change (timings on a shared
# machine do): for comparing builds, e.g. main against a commit before a
# change (perf/RESULTS.md "Issue 13: the cost of an 8-byte call").
#
#   perf/small_ir.sh BUILD_DIR... [-- COLL:BYTES...]
#
# BUILD_DIR: a built tree (tools/plexusrun, perf/.libs/plx_perf, .libs/).
# Default cases: allreduce:8 bcast:8 reduce:8 allreduce:4096 allreduce:65536.
# Rank 0 runs under valgrind --tool=callgrind, collecting only inside the
# blocking plx_<coll> (--toggle-collect); rank 1 runs natively, so it is
# nearly always there first.  The instructions of a wait still depend on
# how long rank 0 waited (failed polls), so each case runs 6 times (3 with
# N = 1000 calls, 3 with 4000) and the per-call figure is the least-squares
# fit Ir = a * calls + b * failed_polls + c (failed polls: calls of
# plx_backoff_idle): a = instructions per call when the peer is there,
# b = per failed poll.  Prints one line per build and case.
# Needs valgrind and python3; ~10 s per case and build.
# IR_RANKS=N runs N ranks (default 2), IR_RANK=r measures rank r instead of
# rank 0 (e.g. a reduce's inner or leaf rank at 4 ranks).
set -u
builds=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do builds+=("$1"); shift; done
[ "${1:-}" = "--" ] && shift
cases=("$@")
[ ${#cases[@]} -eq 0 ] && cases=(allreduce:8 bcast:8 reduce:8 allreduce:4096 allreduce:65536)
if [ ${#builds[@]} -eq 0 ]; then
    echo "usage: $0 BUILD_DIR... [-- COLL:BYTES...]" >&2
    exit 2
fi
command -v valgrind >/dev/null && command -v python3 >/dev/null || { echo "$0: needs valgrind and python3" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/small_ir.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# fit.py ROWS: rows "Ir calls failed_polls" -> a b c
cat >"$tmp/fit.py" <<'PY'
import sys
rows = [list(map(float, l.split())) for l in open(sys.argv[1]) if l.strip()]
A = [[r[1], r[2], 1.0] for r in rows]
y = [r[0] for r in rows]
M = [[sum(a[i] * a[j] for a in A) for j in range(3)] + [sum(a[i] * v for a, v in zip(A, y))]
     for i in range(3)]
for i in range(3):
    p = max(range(i, 3), key=lambda k: abs(M[k][i]))
    M[i], M[p] = M[p], M[i]
    for k in range(3):
        if k != i and M[i][i]:
            f = M[k][i] / M[i][i]
            M[k] = [u - f * w for u, w in zip(M[k], M[i])]
print(" ".join("%.0f" % (M[i][3] / M[i][i] if M[i][i] else float("nan")) for i in range(3)))
PY
# calls.py FILE FN...: calls into each function (callgrind call lines)
cat >"$tmp/calls.py" <<'PY'
import re, sys, collections
names, calls, cur, pending = {}, collections.Counter(), None, None
for line in open(sys.argv[1]):
    m = re.match(r'^(c?fn)=\((\d+)\)(?: (.*))?$', line.rstrip('\n'))
    if m:
        kind, i, nm = m.groups()
        if nm: names[i] = nm
        if kind == 'cfn': cur = names.get(i, i)
        continue
    if line.startswith('calls='):
        pending = int(line[6:].split()[0])
        continue
    if pending is not None:
        calls[cur] += pending
        pending = None
print(" ".join(str(calls[f]) for f in sys.argv[2:]))
PY

for b in "${builds[@]}"; do
    b=$(cd "$b" && pwd)
    for cb in "${cases[@]}"; do
        c=${cb%%:*}; s=${cb##*:}
        wrap=$tmp/wrap.sh
        cat >"$wrap" <<W
#!/bin/sh
if [ "\$PLX_RANK" = ${IR_RANK:-0} ]; then exec valgrind -q --tool=callgrind --callgrind-out-file=$tmp/cg.\$K --toggle-collect=plx_$c "\$@"; fi
exec "\$@"
W
        chmod +x "$wrap"
        : >"$tmp/rows"
        k=0; algo=?
        for n in 1000 1000 1000 4000 4000 4000; do
            k=$((k + 1))
            if ! K=$k LD_LIBRARY_PATH=$b/.libs timeout 600 "$b/tools/plexusrun" -n "${IR_RANKS:-2}" "$wrap" \
                "$b/perf/.libs/plx_perf" -c "$c" -b "$s" -e "$s" -n $n -w 0 >"$tmp/out" 2>&1; then
                echo "$b $c $s: run failed:"; tail -5 "$tmp/out"; continue
            fi
            algo=$(awk '/^ +[0-9]/ { print $NF; exit }' "$tmp/out")
            ir=$(awk '/^summary:/ { print $2; exit }' "$tmp/cg.$k")
            echo "$ir $(python3 "$tmp/calls.py" "$tmp/cg.$k" "plx_$c" plx_backoff_idle)" >>"$tmp/rows"
        done
        read -r a fp cst < <(python3 "$tmp/fit.py" "$tmp/rows")
        echo "$b $c $s $algo: $a instructions/call ($fp per failed poll; runs: $(tr '\n' ';' <"$tmp/rows"))"
    done
done
