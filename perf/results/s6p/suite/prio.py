import re,sys
# prio.py LIST TAP BUDGET PREFIX: intracommunicator tests first (the ones the layer routes), then the rest, cut by earlier times
tl,tap,budget,prefix=sys.argv[1],sys.argv[2],float(sys.argv[3]),sys.argv[4]
t={}
for l in open(tap):
    m=re.match(r'^(?:not )?ok\s*-\s*\./(\S+) (\d+).*time=([0-9.]+)',l)
    if m: t.setdefault((m[1],m[2]),[]).append(float(m[3]))
lines=[l for l in open(tl) if l.split() and not l.startswith('#')]
late=lambda n: re.match(r'(ic|nbic|p_|neighb|ring_neighbor|coll_large)',n) or 'inter' in n
order=[l for l in lines if not late(l.split()[0])]+[l for l in lines if late(l.split()[0])]
chunks=[[]];cur=0;split_done=False
for l in order:
    f=l.split(); v=t.get((f[0],f[1]),[10.0]); d=v.pop(0) if len(v)>1 else v[0]
    if (cur+d>budget and chunks[-1]) or len(chunks[-1])>=int(sys.argv[5]) or (late(f[0]) and not split_done and chunks[-1]):
        chunks.append([]);cur=0
    if late(f[0]): split_done=True
    chunks[-1].append(l);cur+=d
for i,c in enumerate(chunks): open('%s%02d'%(prefix,i),'w').writelines(c)
print(prefix,len(chunks),[len(c) for c in chunks])
