import re,sys
# chunk.py TESTLIST TAP BUDGET PREFIX: split a testlist by the times of an earlier run
tl,tap,budget,prefix=sys.argv[1],sys.argv[2],float(sys.argv[3]),sys.argv[4]
t={}
for l in open(tap):
    m=re.match(r'^(?:not )?ok\s*-\s*\./(\S+) (\d+).*time=([0-9.]+)',l)
    if m: t.setdefault((m[1],m[2]),[]).append(float(m[3]))
chunks=[[]];cur=0
for l in open(tl):
    f=l.split()
    if not f or f[0].startswith('#'): continue
    k=(f[0],f[1]); v=t.get(k,[10.0]); d=v.pop(0) if len(v)>1 else v[0]
    if cur+d>budget and chunks[-1]: chunks.append([]);cur=0
    chunks[-1].append(l);cur+=d
for i,c in enumerate(chunks):
    open('%s%02d'%(prefix,i),'w').writelines(c)
print(len(chunks))
