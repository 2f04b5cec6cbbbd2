#!/bin/bash
# tests/fuzz/run.sh -- build the libFuzzer harnesses of tests/fuzz/ with
# clang (-fsanitize=fuzzer,address,undefined, over the library's own
# sources) and run each for FUZZ_SECONDS (default 5: the short run of make
# check; `make fuzz` runs 600 each).
#   fuzz_frame      bootstrap frame headers, host:port and key parsing
#   fuzz_handshake  a real bootstrap server fed over TCP, as a stranger or
#                   as an authenticated rank
#   fuzz_tune       the PLX_TUNE parser and the table it builds
#   fuzz_env        every PLX_* value parser (config table, getters,
#                   plx_config_load, the bootstrap's)
# Seeds: tests/fuzz/corpus/NAME/ (read only); the growing corpus and any
# crash go to BUILDDIR/_fuzz/.  Inputs in tests/fuzz/regress/NAME/ (crashes
# found earlier) are replayed first.  Prints executions/s and corpus size
# per fuzzer.  Exit 0 clean, 1 on a finding, 77 (skip) without clang.
# Environment: top_srcdir, top_builddir (make check sets them), FUZZ_SECONDS,
# FUZZ_TARGETS (names, default all), FUZZ_CC (default clang).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top_srcdir=${top_srcdir:-$(cd "$here/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
secs=${FUZZ_SECONDS:-5}
targets=${FUZZ_TARGETS:-frame handshake tune env}
cc=${FUZZ_CC:-clang}
S=$top_srcdir
B=$top_builddir/_fuzz

if ! command -v "$cc" >/dev/null 2>&1; then
    echo "SKIP: no clang ($cc not found; apt-get install clang libclang-rt-14-dev)"
    exit 77
fi
mkdir -p "$B/obj" "$B/crashes" || exit 1
probe=$B/probe.c
echo 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }' >"$probe"
if ! "$cc" -fsanitize=fuzzer,address "$probe" -o "$B/probe" >/dev/null 2>&1; then
    echo "SKIP: no clang (with libFuzzer: $cc -fsanitize=fuzzer fails; install libclang-rt-14-dev)"
    exit 77
fi

# The library's sources without the optional dependencies (no CUDA, NCCL,
# UCX or PMIx in the fuzzers: none of the parsers needs them).
sed -E '/define PLX_HAVE_(CUDA|NCCL|UCX|PMIX)\b/d' "$top_builddir/plx_config.h" >"$B/plx_config.h.new"
cmp -s "$B/plx_config.h.new" "$B/plx_config.h" || mv "$B/plx_config.h.new" "$B/plx_config.h"
flags=(-g -O1 -fno-omit-frame-pointer -std=gnu11 -pthread -Wall -Wextra
       -fsanitize=address,undefined -fno-sanitize-recover=undefined
       -include "$B/plx_config.h" -I"$S/include" -iquote "$S/lib" -iquote "$S/transports")
cd "$S" || exit 1
# lib/mpi/ is the MPI layer (its own library, built against an MPI's mpi.h)
srcs=$(find lib transports/shm -name '*.c' -not -path 'lib/mpi/*' | sort)
newest_hdr=$(find lib include transports/shm transports/transport.h "$B/plx_config.h" -name '*.h' -newer "$B/lib.a" 2>/dev/null | head -1)
[ -f "$B/lib.a" ] || newest_hdr=all
objs=()
todo=()
for f in $srcs; do
    o=$B/obj/${f//\//_}.o
    objs+=("$o")
    if [ -n "$newest_hdr" ] || [ ! -f "$o" ] || [ "$f" -nt "$o" ]; then todo+=("$f"); fi
done
if [ ${#todo[@]} -gt 0 ]; then
    echo "fuzz: compiling ${#todo[@]} library source(s) with $cc"
    printf '%s\n' "${todo[@]}" | xargs -P 2 -I{} sh -c \
        'f={}; o="$0/obj/$(echo "$f" | tr / _).o"; exec "$@" -fsanitize=fuzzer-no-link -c "$f" -o "$o"' \
        "$B" "$cc" "${flags[@]}" || { echo "FAIL: compiling the library for the fuzzers"; exit 1; }
    rm -f "$B/lib.a"
    ar rcs "$B/lib.a" "${objs[@]}" || exit 1
fi

fails=0
for t in $targets; do
    h=$S/tests/fuzz/fuzz_$t.c
    exe=$B/fuzz_$t
    if [ ! -x "$exe" ] || [ "$h" -nt "$exe" ] || [ "$B/lib.a" -nt "$exe" ]; then
        "$cc" "${flags[@]}" -fsanitize=fuzzer "$h" "$B/lib.a" -lrt -lm -o "$exe" ||
            { echo "FAIL: building fuzz_$t"; fails=$((fails + 1)); continue; }
    fi
    if [ -d "$S/tests/fuzz/regress/$t" ] && [ -n "$(ls -A "$S/tests/fuzz/regress/$t")" ]; then
        if ! "$exe" "$S/tests/fuzz/regress/$t"/* >"$B/$t.regress.log" 2>&1; then
            echo "FAIL: fuzz_$t: a regression input fails again"; tail -30 "$B/$t.regress.log"
            fails=$((fails + 1)); continue
        fi
        echo "fuzz_$t: $(ls "$S/tests/fuzz/regress/$t" | wc -l) regression input(s) pass"
    fi
    mkdir -p "$B/corpus/$t"
    "$exe" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$B/crashes/$t-" "$B/corpus/$t" "$S/tests/fuzz/corpus/$t" >"$B/$t.log" 2>&1
    rc=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$B/$t.log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$B/$t.log" | tail -1)
    ncorp=$(ls "$B/corpus/$t" | wc -l)
    if [ $rc -eq 0 ]; then
        echo "fuzz_$t: ${secs} s, ${runs:-?} executions (${rate:-?}/s), corpus $ncorp inputs: no finding"
    else
        echo "FAIL: fuzz_$t (exit $rc): see $B/$t.log; the input is in $B/crashes/ (copy it to tests/fuzz/regress/$t/ once fixed)"
        grep -E 'ERROR|SUMMARY|runtime error|deadly signal' "$B/$t.log" | head -5
        fails=$((fails + 1))
    fi
done
[ $fails -eq 0 ] && { echo "PASS: fuzzers ($targets), $secs s each"; exit 0; }
exit 1
