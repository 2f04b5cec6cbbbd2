#!/bin/bash
# tests/install_check.sh — install into a scratch DESTDIR, then use the
# install as an application developer would, nothing from the source tree
# but the application sources:
#   - tests/install/app.c and the README example (examples/hello_allreduce.c)
#     built with `cc app.c $(pkg-config --cflags --libs plexus)` and run on
#     4 and 2 ranks with the installed plexusrun; the program carries a run
#     path to the install's libdir when plexus.pc gives one;
#   - plexus.pc needs no other .pc file (no Requires.private), and a static
#     link against libplexus.a with `pkg-config --static --libs` resolves
#     (UCX, PMIx, ...) and runs;
#   - the CMake package: tests/install/CMakeLists.txt (find_package(plexus),
#     plexus::plexus) configured, built and run (skipped without cmake);
#   - the man pages: `man -M <prefix>/share/man plx_allreduce` finds its
#     page, and plexusrun(1) exists (skipped without man).
set -u
top_builddir=${top_builddir:-$(cd "$(dirname "$0")/.." && pwd)}
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
dest=$(mktemp -d /tmp/plx-install.XXXXXX)
trap 'rm -rf "$dest"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

echo "install_check: make install DESTDIR=$dest"
if ! make -C "$top_builddir" install DESTDIR="$dest" >"$dest/install.log" 2>&1; then
    cat "$dest/install.log"; echo "FAIL: make install"; exit 1
fi
prefix=$(sed -n 's/^prefix=//p' "$top_builddir/plexus.pc")
pcdir=$(find "$dest" -name plexus.pc -printf '%h\n' | head -1)
[ -n "$pcdir" ] || { echo "FAIL: plexus.pc not installed"; exit 1; }
libdir=$(dirname "$pcdir")
for f in include/plexus.h bin/plexusrun bin/plexus_info bin/plx_perf; do
    [ -e "$dest$prefix/$f" ] || bad "$prefix/$f not installed"
done
ls "$libdir"/libplexus.so.* >/dev/null 2>&1 || bad "no versioned libplexus.so"
ls "$libdir"/libplexus.a >/dev/null 2>&1 || bad "no libplexus.a"
[ -f "$libdir/cmake/plexus/plexusConfig.cmake" ] && [ -f "$libdir/cmake/plexus/plexusConfigVersion.cmake" ] ||
    bad "no CMake package in $libdir/cmake/plexus"
[ $fail = 0 ] || exit 1

# The install is staged under DESTDIR: pkg-config is told where its prefix
# now is (every path of plexus.pc derives from ${prefix}), and sees only our
# .pc file, as plexus.pc must not need ucx.pc or pmix.pc.
export PKG_CONFIG_PATH="$pcdir" PKG_CONFIG_LIBDIR="$pcdir"
pc() { pkg-config --define-variable=prefix="$dest$prefix" "$@" plexus; }
[ -z "$(pc --print-requires-private)" ] || bad "plexus.pc has Requires.private"
flags=$(pc --cflags --libs) || { echo "FAIL: pkg-config --cflags --libs plexus"; exit 1; }
run="$dest$prefix/bin/plexusrun"

echo "install_check: cc app.c $flags"
# shellcheck disable=SC2086
${CC:-cc} -o "$dest/app" "$top_srcdir/tests/install/app.c" $flags || bad "app.c does not build against the install"
# shellcheck disable=SC2086
${CC:-cc} -o "$dest/hello" "$top_srcdir/examples/hello_allreduce.c" $flags ||
    bad "examples/hello_allreduce.c does not build against the install"
# with the run path plexus.pc gives (a non-system libdir), the programs
# find libplexus.so without LD_LIBRARY_PATH, as the README promises
if pc --libs | grep -q -- '-Wl,-rpath'; then
    readelf -d "$dest/hello" | grep -E 'RPATH|RUNPATH' | grep -qF "$dest$prefix/lib" ||
        bad "plexus.pc gives a run path but the program does not carry it"
else
    export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
"$run" -n 4 --timeout 120 "$dest/app" || bad "app on 4 ranks"
"$run" -n 2 --timeout 120 "$dest/hello" || bad "the README example on 2 ranks"

# static: libplexus.a with the flags pkg-config --static gives (-l:libplexus.a
# picks the archive while the system libraries stay shared)
sflags=$(pc --static --libs)
echo "install_check: cc hello.c (static libplexus.a) ${sflags/-lplexus/-l:libplexus.a}"
# shellcheck disable=SC2086
if ${CC:-cc} -o "$dest/hello_static" "$top_srcdir/examples/hello_allreduce.c" \
        $(pc --cflags) ${sflags/-lplexus/-l:libplexus.a}; then
    ldd "$dest/hello_static" | grep -q libplexus && bad "the static link still loads libplexus.so"
    "$run" -n 2 --timeout 120 "$dest/hello_static" || bad "statically linked example on 2 ranks"
else
    bad "static link with pkg-config --static --libs plexus"
fi

# CMake package
if command -v cmake >/dev/null 2>&1; then
    echo "install_check: cmake -S tests/install -DCMAKE_PREFIX_PATH=$dest$prefix"
    # CMake wants the compiler alone: $CC's flags (make check-sanitize's
    # -fsanitize=...) go to the compile and link flags
    cc_words=${CC:-cc}
    cc_flags=
    case $cc_words in *" "*) cc_flags=${cc_words#* } ;; esac
    if cmake -S "$top_srcdir/tests/install" -B "$dest/cmake-build" -DCMAKE_PREFIX_PATH="$dest$prefix" \
            -DCMAKE_C_COMPILER="${cc_words%% *}" -DCMAKE_C_FLAGS="$cc_flags" \
            -DCMAKE_EXE_LINKER_FLAGS="$cc_flags" >"$dest/cmake.log" 2>&1 &&
       cmake --build "$dest/cmake-build" >>"$dest/cmake.log" 2>&1; then
        "$run" -n 4 --timeout 120 "$dest/cmake-build/app" || bad "the CMake-built app on 4 ranks"
    else
        cat "$dest/cmake.log"; bad "CMake build of tests/install against the install"
    fi
else
    echo "SKIP: cmake not installed (the CMake package is not checked)"
fi

# man pages
mandir=$dest$prefix/share/man
if command -v man >/dev/null 2>&1; then
    for page in plx_allreduce plx_init plexusrun plx_perf plexus_info; do
        man -M "$mandir" -w "$page" >/dev/null 2>&1 || bad "man -M <prefix>/share/man $page finds no page"
    done
    MANWIDTH=80 man -M "$mandir" plx_allreduce 2>/dev/null | grep -q 'plx_allreduce' ||
        bad "man plx_allreduce does not show the function"
else
    ls "$mandir/man3/plx_allreduce.3" >/dev/null 2>&1 || bad "no man3/plx_allreduce.3"
fi

LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$dest$prefix/bin/plexus_info" --version ||
    bad "plexus_info"
[ $fail = 0 ] && echo "PASS: install_check"
exit $fail
