#!/bin/bash
# tests/perf_smoke.sh — plx_perf as users run it: every collective at 3
# ranks, out of place and in place, a reduction op and datatype other than
# the default, with results checked (a wrong element makes plx_perf exit
# non-zero) and the CSV and JSON outputs well formed; --overlap (tiny
# sizes, few iterations) with caller-driven progress and with
# PLX_PROGRESS=thread, its CSV carrying the six overlap columns; the
# nccl-tests options and footers; malformed options refused; --help.
set -u
top_builddir=${top_builddir:-$(cd "$(dirname "$0")/.." && pwd)}
run=$top_builddir/tools/plexusrun
perf=$top_builddir/perf/plx_perf
tmp=$(mktemp -d /tmp/plx-perf.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail=0

check() {  # description, command...
    local what=$1; shift
    echo "+ $*"
    if "$@" >"$tmp/out" 2>&1; then
        echo "  ok: $what"
    else
        cat "$tmp/out"; echo "  FAIL: $what"; fail=1
    fi
}

check "all collectives, float32 sum, 3 ranks" \
    "$run" -n 3 --timeout 120 "$perf" --coll all -b 8 -e 256K -f 32 -w 1 -n 3 --csv "$tmp/a.csv" --json "$tmp/a.json"
check "all collectives in place, int32 max, root 2, 3 ranks" \
    "$run" -n 3 --timeout 120 "$perf" --coll all -b 8 -e 256K -f 32 -w 1 -n 3 --in-place -d int32 -o max -r 2
check "all collectives nonblocking (-z 0), in place, 3 ranks" \
    "$run" -n 3 --timeout 120 "$perf" --coll all -b 8 -e 64K -f 32 -w 1 -n 3 -z 0 --in-place
check "bfloat16 avg allreduce, 2 ranks" \
    "$run" -n 2 --timeout 60 "$perf" --coll allreduce -b 8 -e 1M -f 16 -w 1 -n 3 -d bfloat16 -o avg
check "--overlap, all collectives, 3 ranks" \
    "$run" -n 3 --timeout 120 "$perf" --coll all -b 8 -e 64K -f 64 -w 1 -n 3 --overlap --csv "$tmp/o.csv" --json "$tmp/o.json"
check "--overlap in place, allreduce, 2 ranks, PLX_PROGRESS=thread" \
    env PLX_PROGRESS=thread "$run" -n 2 --timeout 60 "$perf" --coll allreduce -b 8 -e 1M -f 32 -w 1 -n 3 --in-place --overlap

# CSV: the header, then one row per collective and size, 7 fields, 0 wrong
if [ "$(head -1 "$tmp/a.csv")" != "library,collective,ranks,bytes,time_us,busbw_gbps,wrong" ]; then
    echo "  FAIL: CSV header"; fail=1
fi
# -c all: the 10 first collectives and sendrecv, plus issue 14's allgatherv
# alltoallv gatherv scatterv reduce_scatterv scan exscan
want_colls=17
rows=$(tail -n +2 "$tmp/a.csv" | wc -l)
bad=$(tail -n +2 "$tmp/a.csv" | awk -F, 'NF != 7 || $1 != "plexus" || $3 != 3 || $7 != 0' | wc -l)
colls=$(tail -n +2 "$tmp/a.csv" | cut -d, -f2 | sort -u | wc -l)
if [ "$rows" -lt "$want_colls" ] || [ "$bad" -ne 0 ] || [ "$colls" -ne "$want_colls" ]; then
    echo "  FAIL: CSV has $rows rows, $bad malformed, $colls collectives (want $want_colls)"; fail=1
else
    echo "  ok: CSV: $rows rows over $colls collectives"
fi
# JSON: an array with as many objects as CSV rows
objs=$(grep -c '"library": "plexus"' "$tmp/a.json")
if [ "$(head -c1 "$tmp/a.json")" != "[" ] || [ "$objs" -ne "$rows" ] || ! tail -1 "$tmp/a.json" | grep -q '^]$'; then
    echo "  FAIL: JSON has $objs objects for $rows CSV rows"; fail=1
else
    echo "  ok: JSON: $objs objects"
fi

# --overlap CSV: 13 fields (the 7 usual ones, then t_compute/t_total/overlap
# for idle and busy compute), numbers everywhere, 0 wrong
ohead="library,collective,ranks,bytes,time_us,busbw_gbps,wrong,t_compute_idle_us,t_total_idle_us,overlap_idle,t_compute_busy_us,t_total_busy_us,overlap_busy"
if [ "$(head -1 "$tmp/o.csv")" != "$ohead" ]; then
    echo "  FAIL: --overlap CSV header: $(head -1 "$tmp/o.csv")"; fail=1
fi
orows=$(tail -n +2 "$tmp/o.csv" | wc -l)
obad=$(tail -n +2 "$tmp/o.csv" | awk -F, '{ bad = NF != 13 || $1 != "plexus" || $7 != 0
                                               for (i = 8; i <= 13; i++) if ($i !~ /^-?[0-9]+(\.[0-9]+)?$/) bad = 1
                                               if (bad) print }' | wc -l)
ocolls=$(tail -n +2 "$tmp/o.csv" | cut -d, -f2 | sort -u | wc -l)
oobjs=$(grep -c '"overlap": \[{"compute": "idle"' "$tmp/o.json")
if [ "$orows" -lt "$want_colls" ] || [ "$obad" -ne 0 ] || [ "$ocolls" -ne "$want_colls" ] || [ "$oobjs" -ne "$orows" ]; then
    echo "  FAIL: --overlap CSV has $orows rows, $obad malformed, $ocolls collectives; JSON $oobjs objects"; fail=1
else
    echo "  ok: --overlap CSV: $orows rows over $ocolls collectives, JSON $oobjs objects"
fi

# nccl-tests' options with their meaning there, and their footer lines
check "nccl-tests flags: -d float -o sum -c 2 -z 0 -a 3 -g 1 -t 1, 2 ranks" \
    "$run" -n 2 --timeout 60 "$perf" -b 1K -e 8K -f 2 -w 1 -n 2 -d float -o sum -c 2 -z 0 -a 3 -g 1 -t 1
if grep -q '^# Out of bounds values : 0 OK$' "$tmp/out" && grep -q '^# Avg bus bandwidth *: [0-9.e+-]* *$' "$tmp/out" &&
   [ "$(grep -cE '^ +[0-9]+ +[0-9]+ +float32 +sum ' "$tmp/out")" -eq 4 ] && grep -q 'nonblocking' "$tmp/out"; then
    echo "  ok: footers, float = float32, -i/-f sizes (4 rows), -z 0 nonblocking"
else
    echo "  FAIL: nccl-tests footers or rows missing"; fail=1
fi
check "-i stepbytes: 3 sizes 1000, 2000, 3000" "$run" -n 1 --timeout 60 "$perf" --coll bcast -b 1000 -e 3000 -i 1000 -n 1 -w 0
[ "$(awk '$1 ~ /^[0-9]+$/ {print $1}' "$tmp/out" | tr '\n' ' ')" = "1000 2000 3000 " ] ||
    { echo "  FAIL: -i 1000 sizes: $(awk '$1 ~ /^[0-9]+$/ {print $1}' "$tmp/out" | tr '\n' ' ')"; fail=1; }
# malformed values are refused before anything starts (exit 2), --help is a real help (exit 0)
for bad in "-n 4x" "-b 1Q" "-f 1" "-d float99" "-o xor" "-z 2" "-a 4" "-g 2" "-c -1" "--coll nope" "--memory gpu" "stray"; do
    # shellcheck disable=SC2086
    "$perf" $bad >"$tmp/out" 2>&1; rc=$?
    if [ $rc -ne 2 ] || ! grep -q 'plx_perf: ' "$tmp/out"; then
        echo "  FAIL: plx_perf $bad: exit $rc (want 2 and a message)"; cat "$tmp/out"; fail=1
    fi
done
echo "  ok: malformed options refused with exit 2"
if "$perf" --help >"$tmp/out" 2>&1 && grep -q -- '--coll' "$tmp/out" && grep -q -- '--stepbytes' "$tmp/out"; then
    echo "  ok: --help"
else
    echo "  FAIL: plx_perf --help"; fail=1
fi

# perf/criteria.py, the issue-11 verdicts, on a window kept in the tree: each
# target's row read by column name (both verdicts occur there), and a
# graph_bench launch made slower flips that row
win=${top_srcdir:-$top_builddir}/perf/results/quiet-1204a
if ! command -v python3 >/dev/null; then
    echo "  skipped: perf/criteria.py (no python3)"
elif [ ! -d "$win" ]; then
    echo "  skipped: perf/criteria.py (no perf/results in this tree)"
else
    crit=${top_srcdir:-$top_builddir}/perf/criteria.py
    python3 "$crit" "$win" > "$tmp/crit" 2>&1
    if [ "$(grep -c '^| [24] ranks' "$tmp/crit")" -eq 14 ] &&
       grep -q '^| 2 ranks allreduce >= 1.4x best MPI, 1-64 MiB | 1.783 / 2.557 / 2.637 / 4.709 | met |$' "$tmp/crit" &&
       grep -q '^| 2 ranks alltoall >= 1.2x.*target 5.41 under the bound 5.78.*NOT met' "$tmp/crit" &&
       grep -q '^| 4 ranks 256 KiB-4 MiB: none slower than the best MPI | 40 of 40 not slower.* | met |$' "$tmp/crit" &&
       grep -q '^| 2 ranks graph_bench.*comm_first 1.042 / 1.067 / 1.100 / 1.080;.* | met |$' "$tmp/crit" &&
       grep -q '^| 2 ranks overlap >= 0.9 at every size, every launch | 13 of 16: .*NOT met' "$tmp/crit"; then
        echo "  ok: perf/criteria.py on $win"
    else
        cat "$tmp/crit"; echo "  FAIL: perf/criteria.py verdicts on $win"; fail=1
    fi
    python3 "$crit" "$win" "$tmp/win" > "$tmp/hist" 2>&1   # (a window without files: every row not met)
    if grep -q '^| 2 ranks allreduce >= 1.4x best MPI, 1-64 MiB | x | - | 1 of 2 |$' "$tmp/hist" &&
       grep -q '^| 2 ranks overlap >= 0.9 at every size, every launch | - | - | 0 of 2 |$' "$tmp/hist"; then
        echo "  ok: perf/criteria.py across two windows"
    else
        cat "$tmp/hist"; echo "  FAIL: perf/criteria.py across two windows"; fail=1
    fi
    mkdir "$tmp/win" && cp "$win"/* "$tmp/win/" &&
        awk '/^idle   comm_first/ && !d {$8 = "1.234"; d = 1} 1' "$tmp/win/graph-overlap-n4.txt" > "$tmp/g4" &&
        mv "$tmp/g4" "$tmp/win/graph-overlap-n4.txt"
    python3 "$crit" "$tmp/win" > "$tmp/crit" 2>&1
    if grep -q '^| 4 ranks graph_bench.*comm_first 1.234 / .*NOT met' "$tmp/crit"; then
        echo "  ok: perf/criteria.py: a 4-rank graph_bench launch at 1.234 is not met"
    else
        cat "$tmp/crit"; echo "  FAIL: perf/criteria.py missed a slow graph_bench launch"; fail=1
    fi
fi

if [ $fail -eq 0 ]; then echo "perf_smoke.sh: PASS"; exit 0; fi
echo "perf_smoke.sh: FAIL"; exit 1
