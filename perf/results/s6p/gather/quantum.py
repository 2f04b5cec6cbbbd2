import csv,glob,sys,collections
# quantum.py CSV...: how the per-half batch times (min, q1, median) of mpi_bench --ab runs
# fall on multiples of 4 ms (one scheduler tick at HZ=250)
vals=[float(r[k]) for f in sys.argv[1:] for r in csv.DictReader(open(f)) for k in ('a_min','a_q1','a_med','b_min','b_q1','b_med')]
h=collections.Counter(int(v//1000) for v in vals)
print('batch times by whole ms:', ' '.join('%d:%d'%kv for kv in sorted(h.items())))
near=sum(1 for v in vals if abs(v/4000-round(v/4000))<0.1)
print('within +-0.4 ms of a multiple of 4 ms: %d of %d (%.0f%%; 20%% if uniform)'%(near,len(vals),100*near/len(vals)))
