import sys, re, statistics as st
# summarize ab.sh output: per arm, over launches (each figure a launch's median over its iterations):
#   ideal  total / the ideal (chain, computes as asked)       meas   total / the chain with the computes measured alone
#   max    total / max(sum measured computes, sum b2b)        start  total / the previous version's ideal (once per launch)
#   free   total / the same work at once without the graph    ms, idealms: total and ideal ms
# The first files of this session (x4_*, ab_n2.txt, ab_n4.txt: header "vs asked") had "vs ideal" = the
# measured chain and the last column = the asked chain; x1-x4 had no asked chain (x1-x3 no free either),
# their "vs ideal" is the measured chain (meas here); read every layout.
rows = {}
cur = None
old = False
for line in open(sys.argv[1]):
    m = re.match(r'# launch (\d+) (\w+) (\w+) n (\d+)', line)
    if m:
        cur = m.group(2); rows.setdefault(cur, {}); continue
    if line.startswith('kind'):
        old = 'vs asked' in line
        continue
    if cur is None: continue
    p = line.split()
    if len(p) >= 9 and p[0] == 'idle' and p[1] in ('comm_first', 'compute_first'):
        k = 'cf' if p[1] == 'comm_first' else 'pf'
        d = rows[cur]
        f = [('max', p[7]), ('start', p[8]), ('ms', p[2])]
        if len(p) > 9: f.append(('free', p[9]))
        if len(p) > 10:
            f += [('ideal', p[10]), ('meas', p[4])] if old else [('ideal', p[4]), ('meas', p[10]), ('idealms', p[3])]
        else:   # x1-x3 (no "free"), x4 (no asked chain): "vs ideal" was the measured chain
            f.append(('meas', p[4]))
        for n, v in f:
            d.setdefault(k + ' ' + n, []).append(float(v))
def q(v):
    v = sorted(v); n = len(v)
    q1 = v[0] if n < 2 else st.quantiles(v, n=4, method='inclusive')[0]
    return "min %7.3f q1 %7.3f med %7.3f max %7.3f n=%d" % (v[0], q1, st.median(v), v[-1], n)
for k in sorted(rows):
    print(k)
    for f in sorted(rows[k]):
        print("   %-16s %s" % (f, q(rows[k][f])))
