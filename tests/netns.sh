#!/bin/bash
# tests/netns.sh — a real two-host job on one machine: two network
# namespaces joined by a veth pair (198.51.100.1 <-> .2, addresses that
# exist only inside them), 2 ranks in each, started by hand with the env
# bootstrap (rank 0 serves the rendezvous on its namespace's address),
# PLX_NODE_ID A/B, UCX over TCP between the namespaces (UCX_TLS=tcp: UCX
# would otherwise find the shared memory the namespaces still share).
# Runs plx_perf over every collective with results checked, then checks
# that rank 0 sent over ucx.  Skipped (77) without UCX, without root, or
# when the sandbox refuses namespaces (the reason is printed).
set -u
top_builddir=${top_builddir:-$(cd "$(dirname "$0")/.." && pwd)}
perf=$top_builddir/perf/plx_perf
grep -q '^#define PLX_HAVE_UCX 1' "$top_builddir/plx_config.h" 2>/dev/null ||
    { echo "SKIP: built without UCX (configure --with-ucx)"; exit 77; }
[ "$(id -u)" = 0 ] || { echo "SKIP: network namespaces need root"; exit 77; }
command -v ip >/dev/null || { echo "SKIP: no ip command (apt-get install iproute2)"; exit 77; }

A=plxA$$ B=plxB$$ va=pva$$ vb=pvb$$
tmp=$(mktemp -d)
cleanup() {
    for p in $(jobs -p); do kill -9 "$p" 2>/dev/null; done
    ip netns del "$A" 2>/dev/null; ip netns del "$B" 2>/dev/null
    ip link del "$va" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
if ! err=$(ip netns add "$A" 2>&1 && ip netns add "$B" 2>&1 &&
           ip link add "$va" type veth peer name "$vb" 2>&1); then
    echo "SKIP: the sandbox refuses network namespaces: $err"; exit 77
fi
ip link set "$va" netns "$A" && ip link set "$vb" netns "$B" &&
ip -n "$A" addr add 198.51.100.1/24 dev "$va" && ip -n "$B" addr add 198.51.100.2/24 dev "$vb" &&
ip -n "$A" link set "$va" up && ip -n "$B" link set "$vb" up &&
ip -n "$A" link set lo up && ip -n "$B" link set lo up ||
    { echo "FAIL: could not wire the namespaces"; exit 1; }

key=$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')
port=$((20000 + RANDOM % 20000))
common=(PLX_SIZE=4 PLX_BOOTSTRAP=198.51.100.1:$port PLX_JOB_KEY=$key PLX_TIMEOUT=120
        PLX_LOG=debug UCX_TLS=tcp,self UCX_HANDLE_ERRORS=none)
start() {   # start <rank> <ns> <node> <dev>
    ip netns exec "$2" env "${common[@]}" PLX_RANK=$1 PLX_NODE_ID=$3 UCX_NET_DEVICES=$4 \
        timeout 300 "$perf" --coll all -b 8 -e 1M -f 8 -n 20 -w 2 >"$tmp/r$1" 2>&1 &
    eval "pid$1=\$!"
}
echo "+ 4 ranks: 0,1 in $A (198.51.100.1), 2,3 in $B (198.51.100.2), UCX_TLS=tcp"
start 0 "$A" A "$va"; start 1 "$A" A "$va"; start 2 "$B" B "$vb"; start 3 "$B" B "$vb"
fail=0
for r in 0 1 2 3; do
    eval "wait \$pid$r"; rc=$?
    [ $rc -eq 0 ] || { echo "  rank $r exited $rc"; fail=1; }
done
grep -v " debug: \| trace: " "$tmp/r0" | grep -E "^#|^ +[0-9]" | head -60
for r in 0 1 2 3; do
    if grep -q "wrong\|FAIL" "$tmp/r$r" && ! grep -q "# all results correct" "$tmp/r$r"; then fail=1; fi
done
grep -q "# all results correct" "$tmp/r0" || { echo "  FAIL: rank 0 did not report correct results"; fail=1; }
line=$(grep "debug: transport ucx:" "$tmp/r0" | tail -1)
echo "  rank 0: ${line#*debug: }"
echo "$line" | grep -q "ucx: [1-9]" || { echo "  FAIL: nothing went over ucx"; fail=1; }
if [ $fail -ne 0 ]; then
    for r in 0 1 2 3; do echo "--- rank $r"; grep -v " trace: " "$tmp/r$r" | tail -15; done
    echo "netns.sh: FAIL"; exit 1
fi
echo "netns.sh: PASS"
