#!/bin/bash
# tests/symbols.sh — libplexus exports nothing but plx_* symbols.
#
# An internal helper that a shared or static libplexus makes global
# (sched_new, coll_*, graph_*) can clash with a function of the same name in
# an application or another library.  This checks the dynamic symbol table
# of libplexus.so (nm -D) and the global symbols of libplexus.a (nm -g), and
# that the public functions of plexus.h are all there.
set -u
top_builddir=${top_builddir:-$(cd "$(dirname "$0")/.." && pwd)}
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
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
so=$(ls "$top_builddir"/.libs/libplexus.so.*.*.* 2>/dev/null | head -1)
a=$top_builddir/.libs/libplexus.a

if [ -z "$so" ]; then
    echo "SKIP: no shared libplexus built (--disable-shared)"
else
    extra=$(nm -D --defined-only "$so" | awk 'NF == 3 && $3 !~ /^plx_/')
    if [ -n "$extra" ]; then
        echo "FAIL: $so exports symbols without the plx_ prefix:"; echo "$extra"; fail=1
    else
        echo "ok: $so exports only plx_* ($(nm -D --defined-only "$so" | grep -c ' plx_') symbols)"
    fi
    # every function declared in plexus.h is exported (the regex must not lose any)
    missing=
    for f in $(api_functions "$top_srcdir/include/plexus.h"); do
        nm -D --defined-only "$so" | grep -q " T $f\$" || missing="$missing $f"
    done
    if [ -n "$missing" ]; then echo "FAIL: not exported:$missing"; fail=1; else echo "ok: every plexus.h function is exported"; fi
fi

if [ ! -f "$a" ]; then
    echo "SKIP: no static libplexus built (--disable-static)"
else
    extra=$(nm -g --defined-only "$a" | awk 'NF == 3 && $3 !~ /^plx_/')
    if [ -n "$extra" ]; then
        echo "FAIL: $a has global symbols without the plx_ prefix:"; echo "$extra" | head -20; fail=1
    else
        echo "ok: $a has only plx_* global symbols"
    fi
fi
[ $fail = 0 ] && echo "PASS: symbols"
exit $fail
