import sys, re, statistics as st
# summarize ab.sh output: per (build, variant): list of comm_first/compute_first ratio and totals, b2b, sum_comm
# --busy: the busy-compute rows too (s7g)
KINDS = ('idle', 'busy') if '--busy' in sys.argv else ('idle',)
if '--busy' in sys.argv: sys.argv.remove('--busy')
rows = {}
cur = None
for line in open(sys.argv[1]):
    m = re.match(r'# launch (\d+) (\w+) (\w+) n (\d+)', line)
    if m:
        cur = (m.group(2), m.group(3)); d = rows.setdefault(cur, {'cf':[], 'pf':[], 'cft':[], 'pft':[], 'b2b':[], 'sc':[], 'comp':[]}); continue
    if cur is None: continue
    d = rows[cur]
    m = re.search(r'sum_comm ([\d.]+) ms \(each', line)
    if m: d['sc'].append(float(m.group(1)))
    m = re.search(r'back to back .*: ([\d.]+) ms', line)
    if m: d['b2b'].append(float(m.group(1)))
    m = re.search(r'sum_compute ([\d.]+) ms', line)
    if m: d['comp'].append(float(m.group(1)))
    p = line.split()
    if len(p) >= 5 and p[0] in KINDS and p[1] in ('comm_first', 'compute_first'):
        k = 'cf' if p[1] == 'comm_first' else 'pf'
        d[k].append(float(p[4])); d[k+'t'].append(float(p[2]))
def q(v):
    v = sorted(v); n = len(v)
    if not n: return '-'
    return "med %.3f (min %.3f, q1 %.3f, max %.3f) n=%d" % (st.median(v), v[0], v[(n-1)//4], v[-1], n)
for k in sorted(rows):
    d = rows[k]
    print(k)
    for f in ('cf', 'pf', 'cft', 'pft', 'b2b', 'sc', 'comp'):
        print("   %-5s %s" % (f, q(d[f])))
