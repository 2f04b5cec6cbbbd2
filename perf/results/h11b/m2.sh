#!/bin/bash
# per-call time, context switches and CPU ms: difference of a long and a short run
for c in $COLLS; do for s in $SIZES; do for lib in plx ompi; do
  a=$(/tmp/h11b/m1.sh $lib $c $s 100 | tr '\n' ' ')
  b=$(/tmp/h11b/m1.sh $lib $c $s 1100 | tr '\n' ' ')
  python3 - "$lib" "$c" "$s" "$a" "$b" <<'PY'
import sys,re
lib,c,s,a,b=sys.argv[1:]
def p(x):
    t=x.split()
    tm=float(t[5]) if len(t)>5 else 0
    cs=float(re.search(r'([\d.]+),context',x).group(1)); ck=float(re.search(r'([\d.]+),task',x).group(1))
    return tm,cs,ck
ta,ca,ka=p(a); tb,cb,kb=p(b)
print(f"{lib:5} {c:10} {s:5} time/call {tb:8.1f} us  cs/call {(cb-ca)/1000:6.1f}  cpu/call {(kb-ka)/1000*1000:7.1f} us")
PY
done; done; done
