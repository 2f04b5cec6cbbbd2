# sum.py FILES: medians over launches per build and size of the ab.sh output (s5o_sum.py, kept as is)
import sys,collections
d=collections.defaultdict(list); v=None
for fn in sys.argv[1:]:
  for l in open(fn):
    if l.startswith('=='): v=l.split()[1]; continue
    f=l.split()
    if len(f)>12 and f[0].isdigit():
        d[(v,int(f[0]))].append((float(f[5]),float(f[9]),float(f[12]),float(f[8]),float(f[11])))
def q(x,p):
    x=sorted(x); i=(len(x)-1)*p; lo=int(i); hi=min(lo+1,len(x)-1); return x[lo]+(x[hi]-x[lo])*(i-lo)
print("build size n | t_comm med (q1) | idle overlap med [min-max] | idle total med | busy overlap med | busy total med")
for k in sorted(d, key=lambda k:(k[1],k[0])):
    x=d[k]; g=lambda j:[a[j] for a in x]
    print(f"{k[0]:5s} {k[1]>>20:3d}MiB n={len(x)} | {q(g(0),.5):8.0f} ({q(g(0),.25):8.0f}) | {q(g(1),.5):.3f} [{min(g(1)):.3f}-{max(g(1)):.3f}] | {q(g(3),.5):8.0f} | {q(g(2),.5):+.3f} | {q(g(4),.5):8.0f}")
