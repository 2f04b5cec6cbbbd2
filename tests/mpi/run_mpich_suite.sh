#!/bin/bash
# tests/mpi/run_mpich_suite.sh — MPICH's own collective test suite
# (test/mpi/coll of the Debian `mpich` source package), unmodified, under
# each MPI libplexus-mpi was built for, without the layer and through it
# (preloaded, every collective routed: PLX_MPI_COLLS=all), at the process
# counts of its testlist (oversubscribed on a small machine).  `make check-mpi`
# runs it; it is long (tens of minutes per MPI on 2 cores).
#
#   tests/mpi/run_mpich_suite.sh [--mpi openmpi|mpich|both] [--mode plain|layer|both]
#                                [--work DIR] [--tests FILE] [--colls LIST]
#
#   --mpi      which MPI (default: every one the layer was built for)
#   --mode     plain MPI, through the layer, or both (default both);
#              "failures": through the layer, then plain MPI only on the
#              tests that failed through it (to tell the layer's failures
#              from the MPI's own; much shorter on a small machine)
#   --work     where the sources are unpacked, built and run (default
#              $PLX_SUITE_DIR or /tmp/plexus-mpich-suite; reused by later runs)
#   --tests    a testlist of one's own (lines "name nprocs [args]") instead of
#              coll/testlist, e.g. to rerun a few tests
#   --colls    PLX_MPI_COLLS for the layer runs (default all); "default"
#              leaves it unset, so the layer's own routing table decides
#   --summary  only print the summary of the results already in WORK
#
# The sources come from `apt-get source mpich` (needs a deb-src line: added
# by this script when run as root, mirroring the existing deb line, else the
# test is skipped with the reason) or from $PLX_MPICH_SRC (an unpacked mpich
# source tree).  MPITEST_TIMEOUT (default 180 s) bounds each test.
#
# Output: per MPI and mode a TAP file in WORK/results, and WORK/results/
# summary.txt: passed / failed / skipped per test without and with the
# layer, the failures the layer adds, and those plain MPI already has.
# Exit status 1 when the layer adds a failure, 77 when nothing could run.
set -u
top_builddir=${top_builddir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
cfg=$top_builddir/plx_config.h
work=${PLX_SUITE_DIR:-/tmp/plexus-mpich-suite}
want_mpi=both mode=both tests_file="" colls=all summary_only=0
while [ $# -gt 0 ]; do
    case "$1" in
    --mpi) want_mpi=$2; shift 2 ;;
    --mode) mode=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --tests) tests_file=$(cd "$(dirname "$2")" && pwd)/$(basename "$2"); shift 2 ;;
    --colls) colls=$2; shift 2 ;;
    --summary) summary_only=1; shift ;;
    -h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "run_mpich_suite: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
case "$mode" in plain|layer|both|failures) ;; *) echo "run_mpich_suite: --mode plain|layer|both|failures" >&2; exit 2 ;; esac
unset PLX_RANK PLX_SIZE PLX_BOOTSTRAP PLX_JOB_KEY PLX_JOB_ID PLX_LAUNCHER PLX_MPI PLX_MPI_COLLS
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export MPITEST_TIMEOUT=${MPITEST_TIMEOUT:-180}
mkdir -p "$work/results"
# the libraries as they are now: a rebuild during the (long) run changes nothing
libs=$work/lib-$want_mpi   # one per concurrent run
rm -rf "$libs" && mkdir -p "$libs" &&
    cp -a "$top_builddir"/.libs/libplexus.so* "$top_builddir"/.libs/libplexus-mpi-*.so* "$libs"/ 2>/dev/null
log() { printf '%s\n' "$*" >&2; }
skip() { log "SKIP: $*"; echo "SKIP: $*" >"$work/results/summary.txt"; exit 77; }

layers=$(sed -n 's/^#define PLX_MPI_LAYERS "\(.*\)"$/\1/p' "$cfg" 2>/dev/null)
[ -n "$layers" ] || skip "libplexus-mpi was not built (see configure's 'mpi layer' line)"
command -v perl >/dev/null || skip "perl is needed by the suite's runtests"

# ---- the sources --------------------------------------------------------
find_src() {
    if [ -n "${PLX_MPICH_SRC:-}" ]; then
        [ -d "$PLX_MPICH_SRC/test/mpi/coll" ] || skip "PLX_MPICH_SRC=$PLX_MPICH_SRC has no test/mpi/coll"
        src=$PLX_MPICH_SRC; return
    fi
    src=$(ls -d "$work"/src/mpich-*/ 2>/dev/null | head -1)
    [ -n "$src" ] && [ -d "$src/test/mpi/coll" ] && return
    mkdir -p "$work/src"
    if ! (cd "$work/src" && apt-get source -q mpich) >"$work/src/apt.log" 2>&1; then
        if [ "$(id -u)" = 0 ] && ! grep -rqs '^Types:.*deb-src\|^deb-src' /etc/apt/sources.list /etc/apt/sources.list.d/; then
            # mirror the deb line (URIs and key) of the Debian archive for sources
            local f=/etc/apt/sources.list.d/debian.sources
            if [ -f $f ]; then
                awk 'BEGIN{RS="";ORS="\n\n"} /Types: deb/ && /debian\/?\n/ && !/security/ {sub(/Types: deb/,"Types: deb-src"); print; exit}' $f \
                    >/etc/apt/sources.list.d/plexus-debsrc.sources
            else
                sed -n 's/^deb \(.*debian[^ ]* [a-z]* main\).*/deb-src \1/p' /etc/apt/sources.list | head -1 \
                    >/etc/apt/sources.list.d/plexus-debsrc.list
            fi
            log "added a deb-src line; apt-get update"
            apt-get update -q >>"$work/src/apt.log" 2>&1
        fi
        (cd "$work/src" && apt-get source -q mpich) >>"$work/src/apt.log" 2>&1 ||
            skip "apt-get source mpich failed (no deb-src line, no network?): $(tail -1 "$work/src/apt.log"); set PLX_MPICH_SRC to an unpacked mpich source"
    fi
    src=$(ls -d "$work"/src/mpich-*/ | head -1)
}
find_src
src=${src%/}
log "MPICH test suite from $src/test/mpi"

# ---- build the suite once per MPI -----------------------------------------
build_suite() {       # MPI MPICC MPIEXEC -> $work/MPI/coll built
    local mpi=$1 cc=$2 exe=$3 dir=$work/$1
    if [ -f "$dir/.built" ]; then return 0; fi
    rm -rf "$dir"
    cp -a "$src/test/mpi" "$dir"
    log "configuring the suite for $mpi ($cc)"
    # Open MPI 4 hides the MPI-1 calls removed in MPI-3 (which the suite's
    # datatype pool still uses) behind static asserts; its library keeps them
    local cppflags=""
    [ "$mpi" = openmpi ] && cppflags="-DOMPI_OMIT_MPI1_COMPAT_DECLS=0"
    (cd "$dir" && ./configure --disable-maintainer-mode MPICC="$cc" MPIEXEC="$exe" CPPFLAGS="$cppflags" \
        --disable-fortran --disable-cxx --disable-romio --disable-spawn --disable-ft-tests \
        >configure.log 2>&1) || { log "configure of the suite failed for $mpi: $dir/configure.log"; return 1; }
    log "building util, dtpools and coll for $mpi"
    (cd "$dir" && make -k -j2 -C util >make.log 2>&1; make -k -j2 -C dtpools >>make.log 2>&1;
        make -k -j2 -C coll >>make.log 2>&1)
    # a test that does not compile under this MPI fails as such in runtests
    touch "$dir/.built"
}

# ---- the launcher runtests calls -------------------------------------------
launcher() {          # MPI MODE -> path of a wrapper "mpiexec -n N prog args"
    local mpi=$1 m=$2 w=$work/$1/mpiexec-$2
    {
        echo '#!/bin/bash'
        if [ "$mpi" = openmpi ]; then
            printf 'exec mpirun.openmpi --allow-run-as-root --oversubscribe --mca mpi_yield_when_idle 1'
            [ "$m" = layer ] && printf ' -x LD_PRELOAD=%s -x LD_LIBRARY_PATH=%s' \
                "$libs/libplexus-mpi-openmpi.so" "$libs"
            [ "$m" = layer ] && [ "$colls" != default ] && printf ' -x PLX_MPI_COLLS=%s' "$colls"
            printf ' "$@"\n'
        else
            printf 'exec mpirun.mpich -genv MPIR_CVAR_POLLS_BEFORE_YIELD 10'
            [ "$m" = layer ] && printf ' -genv LD_PRELOAD %s -genv LD_LIBRARY_PATH %s' \
                "$libs/libplexus-mpi-mpich.so" "$libs"
            [ "$m" = layer ] && [ "$colls" != default ] && printf ' -genv PLX_MPI_COLLS %s' "$colls"
            printf ' "$@"\n'
        fi
    } >"$w"
    chmod +x "$w"
    echo "$w"
}

run_suite() {         # MPI MODE [TESTLIST]
    local mpi=$1 m=$2 dir=$work/$1 tap=$work/results/$1-$2.tap
    local list=testlist
    [ -n "$tests_file" ] && list=$tests_file
    [ -n "${3:-}" ] && list=$3
    local w
    w=$(launcher "$mpi" "$m")
    log "running coll/$list under $mpi ($m) -> $tap"
    (cd "$dir/coll" && ../runtests -srcdir=. -tests="$list" -mpiexec="$w" -tapfile="$tap" \
        -xmlfile="$work/results/$1-$2.xml" >"$work/results/$1-$2.log" 2>&1)
    log "  $(grep -c '^ok .*# SKIP' "$tap") skipped, $(grep '^ok' "$tap" | grep -vc '# SKIP') passed, $(grep -c '^not ok' "$tap") failed"
}

ran=$summary_only
for mpi in openmpi mpich; do
    [ $summary_only = 1 ] && break
    [ "$want_mpi" = both ] || [ "$want_mpi" = "$mpi" ] || continue
    case " $layers " in *" $mpi "*) ;; *) log "SKIP $mpi: libplexus-mpi-$mpi not built"; continue ;; esac
    cc=$(sed -n "s/^#define PLX_MPICC_$(echo $mpi | tr a-z A-Z) \"\(.*\)\"$/\1/p" "$cfg")
    command -v "mpirun.$mpi" >/dev/null || { log "SKIP $mpi: no mpirun.$mpi"; continue; }
    build_suite "$mpi" "$cc" "mpirun.$mpi" || continue
    ran=1
    case "$mode" in
    plain) run_suite "$mpi" plain ;;
    layer) run_suite "$mpi" layer ;;
    both) run_suite "$mpi" plain; run_suite "$mpi" layer ;;
    failures)
        run_suite "$mpi" layer
        # "not ok N - ./name np" -> testlist lines "name np" (arguments kept
        # from the testlist the layer run used)
        failed_list=$work/$mpi/coll/testlist.layer-failures
        : >"$failed_list"
        grep '^not ok' "$work/results/$mpi-layer.tap" | sed 's/^not ok [0-9]* - //; s/ *#.*//; s|^\./||' |
        sort -u | while read -r name np; do
            # every line of that test at that count: the TAP names a test
            # by program and count only, so `allred 4 -count=10` and
            # `allred 4 -count=100` are one name there (the summary tells
            # them apart by their order: "allred 4 #2")
            grep -E "^$name +$np( |\$)" "${tests_file:-$work/$mpi/coll/testlist}"
        done >"$failed_list"
        if [ -s "$failed_list" ]; then run_suite "$mpi" plain "$failed_list"
        else log "  no failure through the layer: plain MPI not rerun"; rm -f "$work/results/$mpi-plain.tap"; fi ;;
    esac
done
[ $ran -eq 1 ] || skip "no MPI to run the suite under"

# ---- the summary ------------------------------------------------------------
# one line per test and MPI: result without and with the layer
summarize() {
    local added=0
    for mpi in openmpi mpich; do
        local p=$work/results/$mpi-plain.tap l=$work/results/$mpi-layer.tap
        [ -f "$p" ] || [ -f "$l" ] || continue
        echo "== $mpi: MPICH coll suite ($(basename "$src")), plain MPI vs through libplexus-mpi ($( [ "$colls" = default ] && echo "PLX_MPI_COLLS unset: the default table" || echo "PLX_MPI_COLLS=$colls"))"
        for f in "$p" "$l"; do
            [ -f "$f" ] || continue
            printf '  %-6s %4d passed, %3d failed, %3d skipped\n' "$(basename "$f" .tap | sed 's/.*-//')" \
                "$(grep '^ok' "$f" | grep -vc '# SKIP')" "$(grep -c '^not ok' "$f")" "$(grep -c '^ok .*# SKIP' "$f")"
        done
        # test key "prog np" -> pass|FAIL|skip
        awk -v P="$p" -v L="$l" '
            function key(line,   s) { s = line; sub(/^(not )?ok [0-9]* *- /, "", s); sub(/ +#.*/, "", s); sub(/^\.\//, "", s); return s }
            # a test that does not build has no process count in its line
            # ("not ok - ./name  # time="): the layer, loaded at run time
            # only, cannot have caused that
            function res(line) { return line ~ /^not ok/ ? (key(line) ~ / / ? "FAIL" : "nobuild") : (line ~ /# SKIP/ ? "skip" : "pass") }
            # the n-th result of a name in a file is its n-th testlist line
            function okey(line, f,   k, c) { k = key(line); c = ++occ[f, k]; return c > 1 ? k " #" c : k }
            FILENAME == P && /^(not )?ok / { k = okey($0, "P"); plain[k] = res($0); if (!(k in seen)) { seen[k] = 1; order[n++] = k } }
            FILENAME == L && /^(not )?ok / { k = okey($0, "L"); layer[k] = res($0); if (!(k in seen)) { seen[k] = 1; order[n++] = k } }
            END {
                for (i = 0; i < n; i++) {
                    k = order[i]; a = (k in plain) ? plain[k] : "-"; b = (k in layer) ? layer[k] : "-"
                    note = ""
                    if (b == "nobuild") note = "  (does not build against this MPI)"
                    else if (a != "FAIL" && b == "FAIL") note = "  <- added by the layer"
                    else if (a == "FAIL" && b == "FAIL") note = "  (plain MPI fails too)"
                    else if (a == "FAIL") note = "  (plain MPI fails)"
                    printf "  %-40s plain %-4s layer %-4s%s\n", k, a, b, note
                }
            }' $( [ -f "$p" ] && echo "$p" ) $( [ -f "$l" ] && echo "$l" )
    done
}
summarize | tee "$work/results/summary.txt"
if grep -q '<- added by the layer' "$work/results/summary.txt"; then
    echo "run_mpich_suite: the layer adds failures (see above)"; exit 1
fi
echo "run_mpich_suite: no failure added by the layer"
