import sys, collections
d = collections.defaultdict(list)
for f in sys.argv[1:]:
    for l in open(f):
        if l.startswith('#'): continue
        p = l.split()
        if len(p) < 7: continue
        d[(p[2], int(p[3]), p[1])].append(float(p[4]))
def q1(v):
    v = sorted(v); k = (len(v)-1)*0.25; i = int(k)
    return v[i] if i+1 >= len(v) else v[i] + (v[i+1]-v[i])*(k-i)
builds = []
for k in d:
    if k[2] not in builds: builds.append(k[2])
print("coll bytes " + " ".join(f"{b}(min/q1)" for b in builds))
for (c, b) in sorted({(k[0], k[1]) for k in d}):
    print(f"{c} {b} " + " ".join(f"{min(d[(c,b,x)]):.2f}/{q1(d[(c,b,x)]):.2f}" if (c,b,x) in d else "-" for x in builds))
