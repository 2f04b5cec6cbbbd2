import collections,sys
samples=[];cur=None
for ln in open(sys.argv[1]):
    if not ln.strip():
        if cur is not None: samples.append(cur); cur=None
        continue
    if ln[0] in '\t ':
        if cur is not None: cur.append(ln.split()[1] if len(ln.split())>1 else '?')
    else:
        if cur is not None: samples.append(cur)
        cur=[]
if cur: samples.append(cur)
tot=len(samples)
pvm=[s for s in samples if any('process_vm_rw' in f for f in s)]
mm=[s for s in samples if s and 'memmove' in s[0]]
print('samples',tot,'in process_vm_rw',len(pvm),'user memmove',len(mm))
c=collections.Counter(s[0] for s in pvm)
for k,v in c.most_common(14): print(' ',v, k)
c2=collections.Counter()
for s in pvm:
    for i,f in enumerate(s):
        if f.startswith('process_vm_rw_core'):
            c2[s[i-1] if i>0 else 'self']+=1; break
print('--- children of process_vm_rw_core')
for k,v in c2.most_common(10): print(' ',v,k)
