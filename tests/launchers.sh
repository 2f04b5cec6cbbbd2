#!/bin/bash
# tests/launchers.sh — Plexus started by other launchers:
#   1. mpirun of Open MPI (PMIx), no Plexus variable set: coll_check --quick
#      at 4 ranks; PLX_LOG=debug must show "found through pmix" on every rank;
#      tests/mr/launch_check at 4 ranks: one job of 4, and each rank's local
#      rank (plx_local_rank before plx_init, from OMPI_COMM_WORLD_LOCAL_*)
#      is its rank, of 4, and equals the PLX_LOCAL_* plx_init sets;
#   2. an MPI program bootstrapping Plexus from MPI_COMM_WORLD through
#      plx_init_oob (tests/mpi/oob_mpi.c, built here with mpicc.openmpi)
#      at 3 ranks, results compared with MPI's.
#   3. mpirun.mpich (MPICH's hydra, PMI): tests/mr/launch_check at 4 ranks
#      must be one job of 4 (PLX_LOG=debug: "found through pmi" on each),
#      local rank r of 4 on rank r (MPI_LOCALRANKID, then plx_init's);
#      with PMI_FD taken away, plx_init must refuse instead of running 2
#      singletons; -pmi-port (PMI over TCP) at 3 ranks.
#   0. (always) plx_local_rank() alone (launch_check --local, no plx_init)
#      on hand-made launcher environments: which variable wins, Slurm's
#      "2(x3),1" tasks-per-node form, malformed values, none at all; and
#      plx_init setting PLX_LOCAL_* itself (plexusrun --nodes 2, unset).
# Each part is skipped (with the reason) when its tools are missing; the
# test is skipped (77) when all are.  Slurm (srun --mpi=pmi2/pmix) has its
# own test, tests/slurm.sh.
set -u
top_builddir=${top_builddir:-$(cd "$(dirname "$0")/.." && pwd)}
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
mr=$top_builddir/tests/mr
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# no Plexus bootstrap variables may leak in from the caller
unset PLX_RANK PLX_SIZE PLX_BOOTSTRAP PLX_JOB_KEY PLX_JOB_ID PLX_LAUNCHER PLX_LOCAL_RANK PLX_LOCAL_SIZE
# "rank r of 4 ok (local rank r of 4)" on every rank: one node, so the local
# rank the launcher gave (before plx_init) is the rank; launch_check itself
# fails a rank whose PLX_LOCAL_* after plx_init disagree
local4='launch_check: rank \([0-3]\) of 4 ok (local rank \1 of 4)$'
fail=0 ran=0

# 0. plx_local_rank on hand-made environments (env -i: nothing inherited)
echo "+ launch_check --local (plx_local_rank before plx_init) under hand-made environments"
lc() { env -i "$@" "$mr/launch_check" --local 2>/dev/null; }
p0=0
expect() {   # expect WANT VAR=... : the line launch_check --local prints
    want=$1; shift
    got=$(lc "$@")
    [ "$got" = "$want" ] || { echo "  FAIL: $* -> '$got', want '$want'"; p0=1; }
}
expect "local 2 of 3" PLX_LOCAL_RANK=2 PLX_LOCAL_SIZE=3 MPI_LOCALRANKID=0 MPI_LOCALNRANKS=5
expect "local 1 of 5" MPI_LOCALRANKID=1 MPI_LOCALNRANKS=5 OMPI_COMM_WORLD_LOCAL_RANK=0 \
       OMPI_COMM_WORLD_LOCAL_SIZE=2 SLURM_LOCALID=0 SLURM_NTASKS_PER_NODE=9
expect "local 3 of 4" OMPI_COMM_WORLD_LOCAL_RANK=3 OMPI_COMM_WORLD_LOCAL_SIZE=4 SLURM_LOCALID=0 \
       SLURM_NTASKS_PER_NODE=9
# Slurm: node 2 of "2(x3),1" has 2 tasks, node 3 has 1; the step's list wins
expect "local 1 of 2" SLURM_LOCALID=1 SLURM_NODEID=2 SLURM_STEP_TASKS_PER_NODE='2(x3),1' \
       SLURM_TASKS_PER_NODE=8
expect "local 0 of 1" SLURM_LOCALID=0 SLURM_NODEID=3 SLURM_TASKS_PER_NODE='2(x3),1'
expect "local 2 of 4" SLURM_LOCALID=2 SLURM_NODEID=1 SLURM_TASKS_PER_NODE='3,4(x2)'
expect "local 0 of 4" SLURM_LOCALID=0 SLURM_TASKS_PER_NODE=4
expect "local 1 of 2" SLURM_LOCALID=1 SLURM_NTASKS_PER_NODE=2
# malformed or contradictory: invalid argument, both out-values -1
bad="invalid argument (-1 -1)"
expect "$bad" SLURM_LOCALID=1 SLURM_NODEID=3 SLURM_TASKS_PER_NODE='2(x3),1'   # rank 1 of 1
expect "$bad" SLURM_LOCALID=0 SLURM_NODEID=4 SLURM_TASKS_PER_NODE='2(x3),1'   # no node 4
expect "$bad" SLURM_LOCALID=0 SLURM_TASKS_PER_NODE='2(3)'
expect "$bad" PLX_LOCAL_RANK=4x PLX_LOCAL_SIZE=8
expect "$bad" PLX_LOCAL_RANK=2 PLX_LOCAL_SIZE=2
expect "$bad" PLX_LOCAL_RANK=0
expect "$bad" MPI_LOCALRANKID=-1 MPI_LOCALNRANKS=2
# nothing known: not supported, both -1 (SLURM_LOCALID alone gives no size)
none="not supported by this build or machine (-1 -1)"
expect "$none" PATH=/usr/bin
expect "$none" SLURM_LOCALID=0 PMIX_RANK=0 PMIX_NAMESPACE=x
# plx_init sets PLX_LOCAL_* from the nodes it found when no launcher did
# (simulated nodes: PLX_NODE_ID, as plexusrun --nodes 2 gives, block)
out=$(timeout 120 "$top_builddir/tools/plexusrun" -n 4 --nodes 2 --bind-to none sh -c \
      'unset PLX_LOCAL_RANK PLX_LOCAL_SIZE; exec "$0" --size 4' "$mr/launch_check" 2>&1 | sort)
want="launch_check: rank 0 of 4 ok (local rank 0 of 2, found by plx_init)
launch_check: rank 1 of 4 ok (local rank 1 of 2, found by plx_init)
launch_check: rank 2 of 4 ok (local rank 0 of 2, found by plx_init)
launch_check: rank 3 of 4 ok (local rank 1 of 2, found by plx_init)"
[ "$out" = "$want" ] || { echo "$out"; echo "  FAIL: plx_init did not set PLX_LOCAL_* from its nodes"; p0=1; }
[ $p0 -eq 0 ] && echo "  ok: the launchers' variables in order, Slurm's compressed list, bad values refused, plx_init's own"
[ $p0 -eq 0 ] || fail=1

if ! command -v mpirun.openmpi >/dev/null; then
    echo "SKIP part 1: no mpirun.openmpi (apt-get install openmpi-bin)"
elif ! grep -q '^#define PLX_HAVE_PMIX 1' "$top_builddir/plx_config.h"; then
    echo "SKIP part 1: built without PMIx (apt-get install libpmix-dev, then configure)"
else
    ran=1
    echo "+ PLX_LOG=debug mpirun.openmpi -n 4 coll_check --quick"
    if timeout 600 mpirun.openmpi -n 4 -x PLX_LOG=debug "$mr/coll_check" --quick >"$tmp/out" 2>&1 &&
       [ "$(grep -c ', 0 failures$' "$tmp/out")" -eq 4 ] &&
       [ "$(grep -c 'found through pmix' "$tmp/out")" -eq 4 ]; then
        echo "  ok: 4 ranks found each other through PMIx, every check passed"
    else
        grep -v " debug: \| trace: " "$tmp/out" | tail -30; grep "initialised" "$tmp/out"
        echo "  FAIL: coll_check under mpirun.openmpi"; fail=1
    fi
    echo "+ mpirun.openmpi -n 4 launch_check --size 4  (local ranks)"
    if timeout 300 mpirun.openmpi -n 4 "$mr/launch_check" --size 4 >"$tmp/out" 2>&1 &&
       [ "$(grep -c "$local4" "$tmp/out")" -eq 4 ]; then
        grep 'launch_check:' "$tmp/out" | sort
        echo "  ok: one job of 4, local ranks 0..3 of 4 before and after plx_init"
    else
        tail -30 "$tmp/out"; echo "  FAIL: launch_check under mpirun.openmpi"; fail=1
    fi
fi

if ! command -v mpicc.openmpi >/dev/null; then
    echo "SKIP part 2: no mpicc.openmpi (apt-get install libopenmpi-dev)"
elif ! command -v mpirun.openmpi >/dev/null; then
    echo "SKIP part 2: no mpirun.openmpi"
else
    ran=1
    echo "+ mpicc.openmpi tests/mpi/oob_mpi.c; mpirun.openmpi -n 3 oob_mpi"
    # a sanitized libplexus (make check-sanitize) needs a sanitized program:
    # the -fsanitize flags of $CC go to mpicc too
    san=$(for w in ${CC:-}; do case $w in -fsanitize*) printf '%s ' "$w" ;; esac; done)
    # shellcheck disable=SC2086
    if ! mpicc.openmpi -O2 $san -I"$top_srcdir/include" "$top_srcdir/tests/mpi/oob_mpi.c" \
            -L"$top_builddir/.libs" -Wl,-rpath,"$top_builddir/.libs" -lplexus -o "$tmp/oob_mpi" \
            >"$tmp/cc" 2>&1; then
        cat "$tmp/cc"; echo "  FAIL: cannot build oob_mpi"; fail=1
    # (sanitized: Open MPI's own leaks sit in plugins it has dlclose'd by
    # exit, so no suppression can name them; leak checking is off for this
    # one program, every other test checks Plexus's)
    elif ASAN_OPTIONS="${ASAN_OPTIONS:-}${san:+:detect_leaks=0}" \
         timeout 300 mpirun.openmpi -n 3 "$tmp/oob_mpi" >"$tmp/out" 2>&1 &&
         [ "$(grep -c ', 0 failures$' "$tmp/out")" -eq 3 ]; then
        grep "oob_mpi:" "$tmp/out"
        echo "  ok: Plexus bootstrapped from MPI_COMM_WORLD"
    else
        tail -30 "$tmp/out"; echo "  FAIL: oob_mpi under mpirun.openmpi"; fail=1
    fi
fi
# 3. MPICH's hydra (PMI on PMI_FD): 4 real ranks, not 4 singletons; and a
#    launch Plexus cannot join (PMI_FD taken away) must refuse, naming the fix.
if ! command -v mpirun.mpich >/dev/null; then
    echo "SKIP part 3: no mpirun.mpich (apt-get install mpich)"
else
    ran=1
    echo "+ mpirun.mpich -n 4 launch_check --size 4"
    if timeout 300 mpirun.mpich -n 4 -genv PLX_LOG debug "$mr/launch_check" --size 4 >"$tmp/out" 2>&1 &&
       [ "$(grep -c "$local4" "$tmp/out")" -eq 4 ] &&
       [ "$(grep -c 'found through pmi$' "$tmp/out")" -eq 4 ]; then
        grep 'launch_check:' "$tmp/out" | sort
        echo "  ok: one job of 4 ranks through hydra's PMI"
    else
        grep -v " debug: \| trace: " "$tmp/out" | tail -30; grep "initialised" "$tmp/out"
        echo "  FAIL: launch_check under mpirun.mpich"; fail=1
    fi
    echo "+ mpirun.mpich -pmi-port -n 3 launch_check --size 3  (PMI over TCP: PMI_PORT, PMI_ID)"
    if timeout 300 mpirun.mpich -pmi-port -n 3 "$mr/launch_check" --size 3 >"$tmp/out" 2>&1 &&
       [ "$(grep -c 'launch_check: rank [0-2] of 3 ok' "$tmp/out")" -eq 3 ]; then
        echo "  ok: one job of 3 ranks through PMI_PORT"
    else
        tail -30 "$tmp/out"; echo "  FAIL: launch_check under mpirun.mpich -pmi-port"; fail=1
    fi
    echo "+ mpirun.mpich -n 2 (PMI_FD unset) launch_check --size 2  (must refuse)"
    if timeout 120 mpirun.mpich -n 2 sh -c 'unset PMI_FD; exec "$0" --size 2' "$mr/launch_check" \
            >"$tmp/out" 2>&1; then
        cat "$tmp/out"; echo "  FAIL: two singletons ran instead of refusing"; fail=1
    elif [ "$(grep -c 'one of 2 started together (PMI_RANK=[01] PMI_SIZE=2)' "$tmp/out")" -eq 2 ] &&
         grep -q 'plexusrun -n 2, mpirun.mpich -n 2, srun --mpi=pmix' "$tmp/out"; then
        echo "  ok: refused on both ranks, naming the fix"
    else
        cat "$tmp/out"; echo "  FAIL: no clear refusal"; fail=1
    fi
fi
[ $ran -eq 1 ] || { echo "SKIP: no launcher to test"; exit 77; }
if [ $fail -eq 0 ]; then echo "launchers.sh: PASS"; exit 0; fi
echo "launchers.sh: FAIL"; exit 1
