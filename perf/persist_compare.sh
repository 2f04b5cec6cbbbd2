#!/bin/bash
# perf/persist_compare.sh — what a persistent collective saves: plx_perf's
# plain (blocking) call, its nonblocking form (--nonblocking: i-call + wait) and the
# persistent form (-P: init once, then start + wait per iteration),
# interleaved in one run for several rounds, medians per variant.
#
#   perf/persist_compare.sh [-n RANKS] [-c COLL] [-s BYTES] [-r ROUNDS] [-i ITERS] [-- plx_perf args]
#
# Defaults: 2 ranks, allreduce, 8 bytes, 7 rounds, 20000 iterations per
# measurement.  Prints `uptime` before and after (the machine is shared:
# compare the three columns of one run, not runs of different days).
# Environment: top_builddir (default: this script's ..).
set -u
top_builddir=${top_builddir:-$(cd "$(dirname "$0")/.." && pwd)}
RUN=$top_builddir/tools/plexusrun
PERF=$top_builddir/perf/plx_perf
n=2 coll=allreduce bytes=8 rounds=7 iters=20000
while [ $# -gt 0 ]; do
    case $1 in
        -n) n=$2; shift 2 ;;
        -c) coll=$2; shift 2 ;;
        -s) bytes=$2; shift 2 ;;
        -r) rounds=$2; shift 2 ;;
        -i) iters=$2; shift 2 ;;
        --) shift; break ;;
        *) echo "usage: $0 [-n RANKS] [-c COLL] [-s BYTES] [-r ROUNDS] [-i ITERS] [-- plx_perf args]" >&2; exit 2 ;;
    esac
done
variants=("plain:" "nonblocking:--nonblocking" "persistent:-P")
echo "# $coll, $bytes B, $n ranks, $rounds rounds x $iters iterations, interleaved"
echo "# before: $(uptime)"
declare -A times
for ((r = 1; r <= rounds; r++)); do
    for v in "${variants[@]}"; do
        name=${v%%:*} flag=${v#*:}
        t=$("$RUN" -n "$n" --timeout 300 "$PERF" -c "$coll" -b "$bytes" -e "$bytes" -n "$iters" \
                -w 1000 $flag "$@" | awk '!/^#/ && NF >= 6 { print $6; exit }')
        if [ -z "$t" ]; then
            echo "persist_compare: plx_perf $flag failed" >&2
            exit 1
        fi
        times[$name]="${times[$name]:-} $t"
    done
    echo "round $r: plain ${times[plain]##* } us, nonblocking ${times[nonblocking]##* } us, persistent ${times[persistent]##* } us"
done
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
mp=$(echo "${times[plain]}" | median)
mn=$(echo "${times[nonblocking]}" | median)
mq=$(echo "${times[persistent]}" | median)
echo "# after: $(uptime)"
printf "median (us): plain %s  nonblocking %s  persistent %s  persistent/plain %.3f\n" "$mp" "$mn" "$mq" \
    "$(awk -v a="$mq" -v b="$mp" 'BEGIN { print (b > 0 ? a / b : 0) }')"
