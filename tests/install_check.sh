#!/bin/bash
# tests/install_check.sh — install into a scratch DESTDIR, then build an
# application exactly as an HPC code would (`cc app.c $(pkg-config --cflags
# --libs plexus)`, nothing from the source tree) and run it on 4 ranks with
# the installed plexusrun.  Proves plexus.pc, the installed header and the
# installed shared library.
set -u
top_builddir=${top_builddir:-$(cd "$(dirname "$0")/.." && pwd)}
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
dest=$(mktemp -d /tmp/plx-install.XXXXXX)
trap 'rm -rf "$dest"' EXIT

echo "install_check: make install DESTDIR=$dest"
if ! make -C "$top_builddir" install DESTDIR="$dest" >"$dest/install.log" 2>&1; then
    cat "$dest/install.log"; echo "FAIL: make install"; exit 1
fi
prefix=$(sed -n 's/^prefix=//p' "$top_builddir/plexus.pc")
libdir=$(find "$dest" -name plexus.pc -printf '%h\n' | head -1)
if [ -z "$libdir" ]; then echo "FAIL: plexus.pc not installed"; exit 1; fi
for f in include/plexus.h bin/plexusrun bin/plexus_info bin/plx_perf; do
    [ -e "$dest$prefix/$f" ] || { echo "FAIL: $prefix/$f not installed"; exit 1; }
done
ls "$(dirname "$libdir")"/libplexus.so.* >/dev/null 2>&1 || { echo "FAIL: no versioned libplexus.so"; exit 1; }
ls "$(dirname "$libdir")"/libplexus.a >/dev/null 2>&1 || { echo "FAIL: no libplexus.a"; exit 1; }

export PKG_CONFIG_PATH="$libdir" PKG_CONFIG_SYSROOT_DIR="$dest"
flags=$(pkg-config --cflags --libs plexus) || { echo "FAIL: pkg-config plexus"; exit 1; }
echo "install_check: cc app.c $flags"
# shellcheck disable=SC2086
if ! ${CC:-cc} -o "$dest/app" "$top_srcdir/tests/install/app.c" $flags; then
    echo "FAIL: could not build app.c against the installed tree"; exit 1
fi
export LD_LIBRARY_PATH="$(dirname "$libdir")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
if ! "$dest$prefix/bin/plexusrun" -n 4 --timeout 120 "$dest/app"; then
    echo "FAIL: app on 4 ranks"; exit 1
fi
"$dest$prefix/bin/plexus_info" --version || { echo "FAIL: plexus_info"; exit 1; }
echo "PASS: install_check"
