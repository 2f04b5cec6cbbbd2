#!/usr/bin/env python3
"""ana.py DIR [BYTES]: per launch and rank of probe.sh's files, the blocking loop's ops against the
idle overlap loop's (post -> done, wake (drive) -> done, who finished, naps, CPUs)."""
import glob, os, re, statistics as st, sys
d = sys.argv[1]; B = int(sys.argv[2]) if len(sys.argv) > 2 else 4194304
def med(x): return st.median(x) if x else float('nan')
for txt in sorted(glob.glob(d + '/L*.txt'), key=lambda s: int(re.findall(r'L(\d+)', s)[-1])):
    k = re.findall(r'L(\d+)', txt)[-1]
    line = [l for l in open(txt) if l.split() and l.split()[0] == str(B)]
    f = line[0].split() if line else None
    tcomm = float(f[5]) if f else 0
    print('L%s t_comm %.0f idle comp %.0f total %.0f ovl %s  (%s)' % (k, tcomm, float(f[7]), float(f[8]), f[9], open(txt).readline().split('load')[-1].strip()))
    ranks = []
    for pf in sorted(glob.glob('%s/L%s.[0-9]*' % (d, k))):
        rows = [l.split() for l in open(pf)][1:]
        rows = [r for r in rows if int(r[1]) == B]
        R = [dict(post=float(r[2]), ptf=float(r[3]), drive=float(r[4]), done=float(r[5]), who=int(r[6]),
                  cpost=int(r[7]), cdrive=int(r[8]), cdone=int(r[9]), ptc=int(r[10], 16), appc=int(r[11], 16),
                  ptp=int(r[12]), pty=int(r[13]), ptyu=float(r[14]), pts=int(r[15]), ptsu=float(r[16]), ptb=int(r[17]),
                  ptlw=float(r[18]), ap=int(r[19]), ay=int(r[20]), ayu=float(r[21]), as_=int(r[22]), asu=float(r[23]), ab=int(r[24])) for r in rows]
        ranks.append(R)
    for ri, R in enumerate(ranks):
        for r in R:
            if r['drive'] and r['drive'] > r['done']: r['drive'] = 0   # a stale mark: it ended before any wait
        blk = [r for r in R if r['drive'] and r['drive'] - r['post'] < 0.3 * tcomm * 1e-6]
        ov = [r for r in R if not r['drive'] or r['drive'] - r['post'] >= 0.3 * tcomm * 1e-6]
        idle = ov[:len(ov) // 2]
        def s(rs, tag):
            if not rs: return
            dur = [(r['done'] - r['post']) * 1e6 for r in rs]
            wk = [(r['drive'] - r['post']) * 1e6 for r in rs if r['drive']]
            wt = [max(0, r['done'] - r['drive']) * 1e6 for r in rs if r['drive']]
            late = sum(1 for r in rs if r['drive'])
            app = sum(1 for r in rs if r['who'] == 0)
            ptf = [(r['ptf'] - r['post']) * 1e6 for r in rs if r['ptf']]
            mig = sum(1 for r in rs if bin(r['ptc']).count('1') > 1)
            print('  r%d %-5s n=%3d op %6.0f wake %6.0f wait(late) %5.0f late %3d appfin %3d ptfirst %5.1f | pt y/ys/s/su/b %5.1f %6.0f %4.1f %6.0f %5.1f lw %5.0f | app y/ys/s/su/b %5.1f %5.0f %4.1f %5.0f %5.1f | ptcpu %s appcpu %s ptmig %d' % (
                ri, tag, len(rs), med(dur), med(wk), med(wt), late, app, med(ptf),
                st.mean(r['pty'] for r in rs), st.mean(r['ptyu'] for r in rs), st.mean(r['pts'] for r in rs), st.mean(r['ptsu'] for r in rs), st.mean(r['ptb'] for r in rs), st.mean(r['ptlw'] for r in rs),
                st.mean(r['ay'] for r in rs), st.mean(r['ayu'] for r in rs), st.mean(r['as_'] for r in rs), st.mean(r['asu'] for r in rs), st.mean(r['ab'] for r in rs),
                ''.join(str(bin(r['ptc']).count('1') > 1 and 'b' or (r['ptc'] >> 1) & 1) for r in rs[:30]),
                ''.join(str((r['appc'] >> 1) & 1 if r['appc'] else '-') for r in rs[:30]), mig))
        s(blk, 'block'); s(idle, 'idle')
