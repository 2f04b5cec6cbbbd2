#!/bin/bash
# perf/results/s9x/ab.sh OUT ROUNDS VARIANT...: interleaved 2-rank plx_perf launches
# (--coll allgather, then alltoall, -b 1M -e 4M -f 4 -n 300 -w 5); per round first
# `LIMITS -p 512K --sizes 1M,4M --csv` (if LIMITS is set) and `PERCALL allgather|alltoall 1M 8 50`
# at each of PCSIZES (default 1M)
# with the first variant's build (if PERCALL is set; a percall.c binary linked to that build).
# VARIANT: LABEL=PREFIX[:ENV=V,ENV=V...]   (PREFIX: an installed build, e.g. <dir>/_inst);
# a LABEL starting with "a2a-" runs for alltoall only.
# OUT lines: round label coll bytes time_us load1 ; "lim" lines: round lim metric value;
# "pc" lines: round pc <percall output>.  Run under qlock x.
set -u
out=$1; rounds=$2; shift 2
vars=("$@")
args=(-b 1M -e 4M -f 4 -n 300 -w 5)
p0=${vars[0]#*=}; p0=${p0%%:*}
echo "# start $(uptime)" >>"$out"
for r in $(seq 1 "$rounds"); do
    echo "# round $r $(uptime)" >>"$out"
    if [ -n "${LIMITS:-}" ]; then
        "$LIMITS" -p 512K --sizes 1M,4M --csv 2>/dev/null |
            awk -F, -v r="$r" '/_[0-9]+[MK]?,/ { print r, "lim", $1, $2 }' >>"$out"
    fi
    if [ -n "${PERCALL:-}" ]; then
        for c in allgather alltoall; do for sz in ${PCSIZES:-1M}; do
            echo "# $r percall $c $sz $(uptime)" >>"$out"
            PLX_PREFIX=$p0 timeout 60 "$p0/bin/plexusrun" -n 2 "$PERCALL" $c $sz 8 50 2>&1 | sed "s/^/$r pc /" >>"$out"
        done; done
    fi
    for c in allgather alltoall; do for v in "${vars[@]}"; do
        label=${v%%=*}; rest=${v#*=}; pre=${rest%%:*}; envs=()
        [ "$pre" != "$rest" ] && IFS=, read -r -a envs <<<"${rest#*:}"
        case $label in a2a-*) [ $c = alltoall ] || continue;; esac
        ld=$(cut -d' ' -f1 /proc/loadavg)
        echo "# $r $label $c $(uptime)" >>"$out"
        env "${envs[@]}" PLX_PREFIX=$pre timeout 60 "$pre/bin/plexusrun" -n 2 \
            "$pre/bin/plx_perf" --coll $c "${args[@]}" 2>&1 |
            awk -v r="$r" -v n="$label" -v ld="$ld" -v c=$c '!/^#/ && $1 ~ /^[0-9]+$/ { print r, n, c, $1, $6, ld, $NF }
              /rror|FAIL/ { print "#", $0 }' >>"$out"
    done; done
done
echo "# end $(uptime)" >>"$out"
