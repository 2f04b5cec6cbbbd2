#!/bin/bash
# hiccup.sh SECONDS: both CPUs at once (hiccup.c), plus the processes that used CPU meanwhile
s=${1:-3}
snap() { for p in /proc/[0-9]*; do awk '{ print $1, $2, $14 + $15 }' $p/stat 2>/dev/null; done | sort -k1,1; }
snap >/tmp/s8x/snap0
/tmp/s8x/hiccup 0 "$s" >/tmp/s8x/h0 & a=$!
/tmp/s8x/hiccup 1 "$s" >/tmp/s8x/h1 & b=$!
wait $a $b
snap >/tmp/s8x/snap1
cat /tmp/s8x/h0 /tmp/s8x/h1
echo "# processes with CPU ticks in the window:"
join /tmp/s8x/snap0 /tmp/s8x/snap1 | awk '$5 - $3 > 0 { print $1, $2, $5 - $3 " ticks" }' | sort -k3 -n -r | head -15
grep -E "^cpu " /proc/stat
