#!/bin/bash
# tests/launchers.sh — Plexus started by other launchers:
#   1. mpirun of Open MPI (PMIx), no Plexus variable set: coll_check --quick
#      at 4 ranks; PLX_LOG=debug must show "found through pmix" on every rank;
#   2. an MPI program bootstrapping Plexus from MPI_COMM_WORLD through
#      plx_init_oob (tests/mpi/oob_mpi.c, built here with mpicc.openmpi)
#      at 3 ranks, results compared with MPI's.
# Each part is skipped (with the reason) when its tools are missing; the
# test is skipped (77) when both are.  Slurm (srun --mpi=pmix) goes through
# the same PMIx path but is not installed here.
set -u
top_builddir=${top_builddir:-$(cd "$(dirname "$0")/.." && pwd)}
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
mr=$top_builddir/tests/mr
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# no Plexus bootstrap variables may leak in from the caller
unset PLX_RANK PLX_SIZE PLX_BOOTSTRAP PLX_JOB_KEY PLX_JOB_ID PLX_LAUNCHER
fail=0 ran=0

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
[ $ran -eq 1 ] || { echo "SKIP: no launcher to test"; exit 77; }
if [ $fail -eq 0 ]; then echo "launchers.sh: PASS"; exit 0; fi
echo "launchers.sh: FAIL"; exit 1
