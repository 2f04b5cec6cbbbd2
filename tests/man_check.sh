#!/bin/bash
# tests/man_check.sh — every function declared in include/plexus.h has a
# section-3 man page made from its doc comment (not "Not documented"), and
# every page (sections 1 and 3) renders without a warning from groff, and
# the section-1 pages describe every long option of their tool's --help.
set -u
top_builddir=${top_builddir:-$(cd "$(dirname "$0")/.." && pwd)}
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
man3=$top_builddir/man/man3
# The functions plexus.h declares: every "plx_name(" outside comments (any
# declaration style, one line or several; function-pointer typedefs are
# "plx_name)(" and do not count).
api_functions() {
    awk '{ line = $0; out = ""
           while (line != "") {
               if (inc) { i = index(line, "*/"); if (!i) { line = ""; break }; line = substr(line, i + 2); inc = 0 }
               else { i = index(line, "/*")
                      if (!i) { out = out line; line = "" }
                      else { out = out substr(line, 1, i - 1); line = substr(line, i + 2); inc = 1 } }
           }
           sub(/\/\/.*/, "", out); print out }' "$1" |
        grep -o 'plx_[a-z0-9_]*[[:space:]]*(' | sed 's/[[:space:]]*($//' | sort -u
}
fail=0
[ -f "$top_builddir/man/man3.stamp" ] || make -C "$top_builddir" man/man3.stamp >/dev/null || exit 1
funcs=$(api_functions "$top_srcdir/include/plexus.h")
n=0
for f in $funcs; do
    n=$((n + 1))
    page=$man3/$f.3
    if [ ! -f "$page" ]; then echo "FAIL: $f has no man page"; fail=1; continue; fi
    # a grouped function's page points to the group's page
    target=$page
    if head -1 "$page" | grep -q '^\.so '; then target=$top_builddir/man/$(sed -n '1s/^\.so //p' "$page"); fi
    grep -q "^\.SH DESCRIPTION" "$target" || { echo "FAIL: $f: no DESCRIPTION in $(basename "$target")"; fail=1; }
    grep -q "Not documented in plexus.h" "$target" && { echo "FAIL: $f: no doc comment in plexus.h"; fail=1; }
    grep -q "$f" "$target" || { echo "FAIL: $f not named in $(basename "$target")"; fail=1; }
done
echo "checked $n functions of plexus.h"
if command -v groff >/dev/null 2>&1; then
    for p in "$man3"/*.3 "$top_srcdir"/man/*.1; do
        head -1 "$p" | grep -q '^\.so ' && continue
        w=$(groff -man -ww -z -Tutf8 "$p" 2>&1)
        [ -z "$w" ] || { echo "FAIL: $(basename "$p") renders with warnings:"; echo "$w" | head -3; fail=1; }
    done
    echo "rendered every page with groff -ww (no warnings)"
else
    echo "(groff not installed: pages not rendered)"
fi
# the section-1 pages name every long option the tool's --help lists
for tool in tools/plexusrun tools/plexus_info perf/plx_perf; do
    page=$top_srcdir/man/$(basename "$tool").1
    [ -x "$top_builddir/$tool" ] || continue
    for opt in $("$top_builddir/$tool" --help 2>&1 | grep -o -- '--[a-z][a-z_-]*' | sort -u); do
        grep -qF -- "$(echo "$opt" | sed 's/-/\\-/g')" "$page" ||
            { echo "FAIL: $(basename "$page") does not describe $opt (from $(basename "$tool") --help)"; fail=1; }
    done
done
echo "checked the section-1 pages against each tool's --help"
# one bug address everywhere: AC_INIT's, in every page's BUGS section and in
# plexus_info --version / --help
bugs=$(sed -n 's/^#define PACKAGE_BUGREPORT "\(.*\)"$/\1/p' "$top_builddir/plx_config.h")
if [ -z "$bugs" ]; then
    echo "FAIL: no PACKAGE_BUGREPORT in plx_config.h (the AC_INIT bug address is empty)"; fail=1
else
    for p in "$man3"/*.3 "$top_srcdir"/man/*.1; do
        head -1 "$p" | grep -q '^\.so ' && continue
        grep -qxF ".UR $bugs" "$p" || { echo "FAIL: $(basename "$p") does not give the bug address $bugs"; fail=1; }
    done
    for o in --version --help; do
        "$top_builddir/tools/plexus_info" $o 2>&1 | grep -qF "$bugs" ||
            { echo "FAIL: plexus_info $o does not print the bug address $bugs"; fail=1; }
    done
    echo "checked the bug address $bugs in every page and in plexus_info"
fi
[ $fail = 0 ] && echo "PASS: man_check"
exit $fail
