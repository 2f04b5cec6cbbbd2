#!/usr/bin/env python3
"""perf/model.py LIMITS.csv COMPARE.csv... -- the 2-rank bytes-moved model of
the direct (single-copy) collectives against what perf/compare measured.

LIMITS.csv: `perf/limits -p 512K --sizes 1M,4M,16M,64M --csv` from the same
window (its per-size figures, both processes working at once, N/2 bytes per
rank; the *_thp_* rows the same with the buffers on 2 MiB huge pages).
COMPARE.csv: `perf/compare -n 2 ... --csv FILE` (busbw as nccl-tests).

Per rank, for N bytes at 2 ranks (each byte counted once; both ranks work at
once, so the both-at-once rates apply):

  allreduce       read-and-add N/2 (RA), write the reduced N/2 into the peer (W)
                  busbw = N / t = 1 / (0.5/RA + 0.5/W)
  reduce_scatter  read-and-add N/2                 busbw = N/2 / t = RA
  reduce          root: read-and-add f N; the other rank: read-and-add and
                  write (1-f) N; the ranks claim pieces, so f balances them:
                  f = (1/RA + 1/W) / (2/RA + 1/W),  busbw = N / (f N / RA)
  allgather       copy the own N/2, read the peer's N/2 into the receive
                  buffer: limits' "exchange" figure does exactly that (EX)
                  busbw = N/2 / t = EX
  alltoall        the same bytes, two-block inputs: "exchange a2a" (EXA)
  For these two the bound is the faster of two ways to move the bytes:
  the CMA exchange (a copy and a process_vm_readv, which pins the peer's
  pages) or the staged one (three copies through a shared stage, no
  system call; limits' stage_exch rows, where the file has them).

Which inputs: the library puts buffers of 512 KiB or more on huge pages
(PLX_DIRECT_THP, lib/coll/direct_thp.c), also the 2 MiB pages at their
ends that reach into mapped memory the program never touched, as long as
khugepaged could fill as much (its max_ptes_none, 511 of 512 pages by
default) -- plx_perf's and mpi_bench's buffers, allocated at twice the
largest size, are such (session s13c: before, an end page was collapsed
only if its untouched part was at most half the buffer, which left the
512 KiB-2 MiB inputs of allgather and alltoall at 1-4 MiB on 4 KiB pages,
and this model took the 4 KiB figures below 4 MiB inputs).  So the bound
uses the huge-page figures where the buffer the peer reads is 512 KiB or
more and the 4 KiB ones below.  That buffer is the input, N bytes, except
in allgather, whose input is the rank's block of N/2: so allgather takes
the huge-page figures from N = 1 MiB.  (Only the first 2 MiB page of a
mapping that begins inside one stays on 4 KiB pages: in plx_perf that is
the start of the receive buffer, written locally, never pinned.)
Both fractions are printed.  For allgather and alltoall the last column
is Plexus against limits' mean exchange pass instead of its best one:
plx_perf reports the mean of back-to-back calls, which pays every
preemption by another process, while the best pass pays none; the mean
pass is the same bytes under the same statistic.  bcast has no row: its per-size input (one
process reading N while the other waits) is not among limits' figures.
"""
import csv
import sys

THP_FROM = 512 << 10   # DIRECT_THP_FROM in lib/coll/node_direct.c


def read_bytes(c, N):
    """The size of the buffer whose pages a peer pins: the input of N bytes,
    but an allgather's input is its block of N/2."""
    return N // 2 if c == 'allgather' else N


def bound(c, g):
    RA, W = g('cma_add%s_pair_gbps'), g('cma_write%s_pair_gbps')
    if c == 'allreduce':
        return 1 / (0.5 / RA + 0.5 / W)
    if c == 'reduce_scatter':
        return RA
    if c == 'reduce':
        f = (1 / RA + 1 / W) / (2 / RA + 1 / W)
        return RA / f
    if c in ('allgather', 'alltoall'):
        return exch(c, g, '')
    return None


def exch(c, g, mean):
    """The faster of the two ways to move an exchange's bytes: the CMA
    figure, or the staged one where limits measured it (older files lack it)."""
    k = 'exch' if c == 'allgather' else 'exch_a2a'
    best = g(f'cma_{k}{mean}%s_pair_gbps')
    try:
        best = max(best, g(f'stage_{k}{mean}%s_pair_gbps'))
    except KeyError:
        pass
    return best


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    L = {r[0]: float(r[1]) for r in csv.reader(open(argv[1])) if len(r) >= 2 and r[0] != 'metric'}
    d = {}
    for f in argv[2:]:
        for r in csv.DictReader(open(f)):
            if r.get('ranks', '2') == '2' and r['library'] in ('plexus', 'openmpi', 'mpich'):
                d[(r['library'], r['collective'], int(r['bytes']))] = float(r['busbw_gbps'])
    print("| collective | bytes | bound 4 KiB / huge pages (GB/s) | Plexus | best MPI | Plexus / MPI "
          "| Plexus / bound (4 KiB, huge) | MPI / bound | Plexus / mean-pass bound |")
    print("| --- | ---: | --- | ---: | ---: | ---: | --- | ---: | ---: |")
    for c in ['allreduce', 'reduce_scatter', 'reduce', 'allgather', 'alltoall']:
        for N in sorted({k[2] for k in d if k[1] == c and k[0] == 'plexus'}):
            def rate(kind):
                def g(m):
                    v = L.get(f"{m % kind}_{N}", -1)
                    if v <= 0:
                        raise KeyError(m % kind)
                    return v
                return g
            try:
                b4 = bound(c, rate(''))
            except KeyError:
                continue
            try:
                bh = bound(c, rate('_thp'))
            except KeyError:
                bh = None
            use = bh if read_bytes(c, N) >= THP_FROM and bh else b4
            p = d[('plexus', c, N)]
            m = max(d.get(('openmpi', c, N), 0), d.get(('mpich', c, N), 0))
            hs = f"{bh:.2f}" if bh else "-"
            fr = f"{p / b4:.2f}, {p / bh:.2f}" if bh else f"{p / b4:.2f}, -"
            size = f"{N >> 20} MiB" if N >= 1 << 20 else f"{N >> 10} KiB"
            ratio = f"{p / m:.2f}" if m else "-"
            mean = "-"
            if c in ('allgather', 'alltoall'):
                try:
                    mv = exch(c, rate('_thp' if use is bh else ''), '_mean')
                except KeyError:
                    mv = -1
                mean = f"{p / mv:.2f} (of {mv:.2f})" if mv > 0 else "-"
            print(f"| {c} | {size} | {b4:.2f} / {hs} (uses {'huge' if use is bh else '4 KiB'}) | {p:.2f} | "
                  f"{m:.2f} | {ratio} | **{p / use:.2f}** ({fr}) | {m / use:.2f} | {mean} |")


if __name__ == '__main__':
    main(sys.argv)
