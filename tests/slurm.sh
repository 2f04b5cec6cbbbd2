#!/bin/bash
# tests/slurm.sh — Plexus under a real one-node Slurm: this test starts its
# own munged, slurmctld and slurmd (Debian's slurm-wlm) in a temporary
# directory, on free ports, and runs tests/mr/launch_check (a 4-rank
# allreduce/allgather that fails unless it is ONE job of 4 ranks) with
#   srun -n 4 --mpi=pmi2   (Plexus's PMI client on PMI_FD)
#   srun -n 4 --mpi=pmix   (PMIx; only when Plexus was built with it)
# whichever plugins `srun --mpi=list` shows (each rank r must also report
# local rank r of 4: plx_local_rank before plx_init reads SLURM_LOCALID and
# SLURM_STEP_TASKS_PER_NODE, and PLX_LOCAL_* after plx_init agree), and
# checks that
#   srun -n 2 --mpi=none   fails at once on both ranks, naming the fix,
# instead of running two 1-rank jobs.  The daemons are always stopped and
# the directory removed (trap), whatever happens.
#
# SKIP (exit 77) with the reason when Slurm cannot start here: not root
# (slurmd must run as root), slurm-wlm or munge not installed, or the node
# does not come up within 60 s.  A failure of Plexus under srun is a FAIL.
# Takes a few seconds on an idle machine (most of it the daemons' start).
set -u
top_builddir=${top_builddir:-$(cd "$(dirname "$0")/.." && pwd)}
prog=$top_builddir/tests/mr/launch_check
probe=$top_builddir/tests/boot_probe
skip() { echo "SKIP: $*"; exit 77; }

[ -x "$prog" ] || { echo "slurm.sh: $prog not built" >&2; exit 99; }
[ "$(id -u)" -eq 0 ] || skip "not root (slurmd must run as root to start tasks)"
for t in munged slurmctld slurmd srun sinfo; do
    command -v "$t" >/dev/null || skip "no $t (apt-get install slurm-wlm munge)"
done

# no Plexus bootstrap variables may leak in from the caller
unset PLX_RANK PLX_SIZE PLX_BOOTSTRAP PLX_JOB_KEY PLX_JOB_ID PLX_LAUNCHER PLX_ALLOW_SINGLETON \
      PLX_LOCAL_RANK PLX_LOCAL_SIZE
T=$(mktemp -d /tmp/plxslurm.XXXXXX) || exit 99
chmod 700 "$T"
pids=()
cleanup() {
    # TERM each daemon we started, then KILL whatever is left after 5 s
    for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
    for _ in $(seq 50); do
        alive=0
        for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
        [ $alive -eq 0 ] && break
        sleep 0.1
    done
    for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done
    # slurmstepd of a step that outlived srun: only ours (our spool dir)
    for p in $(pgrep -f "slurmstepd.*" 2>/dev/null); do
        grep -qs "$T" "/proc/$p/environ" && kill -KILL "$p" 2>/dev/null
    done
    rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

free_port() { "$probe" --print-free-port 2>/dev/null || echo $((20000 + RANDOM % 20000)); }
ctld_port=$(free_port)
slurmd_port=$(free_port)
while [ "$slurmd_port" = "$ctld_port" ]; do slurmd_port=$(free_port); done
host=$(hostname -s)
ncpu=$(nproc)
mkdir -p "$T/state" "$T/spool" "$T/log"

# munge with a key of its own on a socket of its own (no system munged needed)
head -c 1024 /dev/urandom >"$T/munge.key" && chmod 600 "$T/munge.key"
munged -F -f --socket="$T/munge.sock" --key-file="$T/munge.key" --pid-file="$T/munged.pid" \
    --log-file="$T/log/munged.log" --seed-file="$T/munged.seed" >"$T/log/munged.out" 2>&1 &
pids+=($!)

cat >"$T/slurm.conf" <<EOF
ClusterName=plxtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
AuthType=auth/munge
AuthInfo=socket=$T/munge.sock
CryptoType=crypto/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/log/slurmctld.log
SlurmdLogFile=$T/log/slurmd.log
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
ReturnToService=2
PlugStackConfig=$T/plugstack.conf
NodeName=$host NodeAddr=127.0.0.1 CPUs=$ncpu State=UNKNOWN
PartitionName=plx Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
EOF
: >"$T/plugstack.conf"
export SLURM_CONF=$T/slurm.conf

for _ in $(seq 50); do [ -S "$T/munge.sock" ] && break; sleep 0.1; done
[ -S "$T/munge.sock" ] || { cat "$T/log/munged.out" "$T/log/munged.log" 2>/dev/null; skip "munged did not start"; }
slurmctld -D -i >"$T/log/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -N "$host" >"$T/log/slurmd.out" 2>&1 &
pids+=($!)

# bounded wait until the node is idle (under load the daemons are slow)
state=
for _ in $(seq 120); do
    state=$(timeout 10 sinfo -h -n "$host" -o %t 2>/dev/null)
    [ "$state" = idle ] && break
    sleep 0.5
done
if [ "$state" != idle ]; then
    tail -5 "$T/log/slurmctld.log" "$T/log/slurmd.log" "$T/log/slurmctld.out" "$T/log/slurmd.out" 2>/dev/null
    skip "the one-node Slurm did not come up within 60 s (node state '${state:-none}')"
fi
echo "slurm: slurmctld and slurmd up on $host (ports $ctld_port, $slurmd_port), $ncpu CPUs"

plugins=$(timeout 30 srun --mpi=list 2>&1)
fail=0 ran=0
for mpi in pmi2 pmix; do
    if ! grep -qw "$mpi" <<<"$plugins"; then
        echo "SKIP part srun --mpi=$mpi: this Slurm has no $mpi plugin"
        continue
    fi
    if [ $mpi = pmix ] && ! grep -q '^#define PLX_HAVE_PMIX 1' "$top_builddir/plx_config.h"; then
        echo "SKIP part srun --mpi=pmix: Plexus built without PMIx (apt-get install libpmix-dev)"
        continue
    fi
    ran=1
    want=${mpi%2}   # the oob backend: pmi (PMI_FD) or pmix
    echo "+ srun --overcommit -n 4 --mpi=$mpi launch_check --size 4"
    # --overcommit: 4 tasks on fewer CPUs (CI machines have 2)
    timeout 120 srun --overcommit -n 4 --mpi=$mpi --export=ALL,PLX_LOG=debug,PLX_TIMEOUT=60 \
        "$prog" --size 4 >"$T/out" 2>&1
    rc=$?
    if [ $rc -eq 0 ] &&
       [ "$(grep -c 'launch_check: rank \([0-3]\) of 4 ok (local rank \1 of 4)$' "$T/out")" -eq 4 ] &&
       [ "$(grep -c "found through $want\$" "$T/out")" -eq 4 ]; then
        grep 'launch_check:' "$T/out" | sort
        echo "  ok: one job of 4 ranks through $want"
    else
        grep -v ' debug: \| trace: ' "$T/out" | tail -20; grep 'initialised' "$T/out"
        echo "  FAIL: srun --mpi=$mpi (exit $rc)"; fail=1
    fi
done

# srun without PMI: two processes that cannot find each other must refuse
ran=1
echo "+ srun -n 2 --mpi=none launch_check --size 2  (must fail, naming the fix)"
t0=$(date +%s)
timeout 120 srun --overcommit -n 2 --mpi=none --export=ALL,PLX_TIMEOUT=60 "$prog" --size 2 >"$T/out" 2>&1
rc=$?
dt=$(( $(date +%s) - t0 ))
if [ $rc -ne 0 ] && [ $rc -ne 124 ] && [ $dt -lt 60 ] &&
   [ "$(grep -c 'one of 2 started together (SLURM_PROCID=[01] SLURM_STEP_NUM_TASKS=2' "$T/out")" -eq 2 ] &&
   grep -q 'srun --mpi=pmix or --mpi=pmi2' "$T/out"; then
    echo "  ok: refused on both ranks in ${dt} s instead of two 1-rank jobs"
else
    cat "$T/out"; echo "  FAIL: srun --mpi=none (exit $rc, ${dt} s)"; fail=1
fi

[ $ran -eq 1 ] || skip "no usable srun --mpi plugin"
if [ $fail -eq 0 ]; then echo "slurm.sh: PASS"; exit 0; fi
echo "slurm.sh: FAIL"
tail -20 "$T/log/slurmd.log" 2>/dev/null
exit 1
