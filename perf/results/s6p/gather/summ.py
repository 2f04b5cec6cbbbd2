import csv,glob,sys,statistics as st,os,re
# summ.py DIR: per variant and size, the ratio (a_q1/b_q1) of each launch, its median and range, and a/b times
d=sys.argv[1]; rows={}
for f in sorted(glob.glob(d+'/*.csv')):
    v=os.path.basename(f).split('.')[0]
    for r in csv.DictReader(open(f)):
        rows.setdefault((v,int(r['bytes'])),[]).append((float(r['ratio_q1']),float(r['a_q1']),float(r['b_q1'])))
for (v,b),l in sorted(rows.items()):
    rs=sorted(x[0] for x in l)
    print('%-7s %6d n=%2d ratio med %.2f [%.2f-%.2f] q1 %.2f  a_q1 med %8.0f  b_q1 med %8.0f us' % (v,b,len(l),st.median(rs),rs[0],rs[-1],rs[len(rs)//4],st.median(x[1] for x in l),st.median(x[2] for x in l)))
