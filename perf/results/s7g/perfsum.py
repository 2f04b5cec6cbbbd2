import collections, statistics as st, sys
d=collections.defaultdict(list)
for l in open(sys.argv[1]):
    if l.startswith('#'): continue
    p=l.split(); b=p[1]; rest=p[2:]
    k=[j for j,t in enumerate(rest) if t.isdigit()][0]
    v=' '.join(rest[:k]); cols=rest[k:]
    d[(v,int(cols[0]),b)].append(float(cols[5]))
for key in sorted(set((v,s) for v,s,b in d)):
    bs=sorted(d[key+('base',)]); ns=sorted(d[key+('new',)])
    q=lambda v: v[(len(v)-1)//4]
    print("%-18s %9d us base min %8.1f q1 %8.1f | new min %8.1f q1 %8.1f | new/base min %.3f q1 %.3f med %.3f n=%d/%d"%(key[0],key[1],bs[0],q(bs),ns[0],q(ns),ns[0]/bs[0],q(ns)/q(bs),st.median(ns)/st.median(bs),len(bs),len(ns)))
