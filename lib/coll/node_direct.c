/*
 * lib/coll/node_direct.c — node-local single-copy collectives ("direct").
 *
 * Control area of one rank on one communicator: window 16 + comm id of the
 * transport's collective windows (raw shared memory, zeroed at start; a
 * reused id starts numbering above every number its members ever wrote,
 * see setup):
 *
 *   offset   0  header: seq, addr[3] (input, output, scratch), signature
 *   offset 256  done: the last sequence this rank finished reading and
 *               writing its peers' buffers
 *   offset 264  mismatch: the last sequence whose signatures this rank
 *               found to differ (star collectives only, below)
 *   offset 272  go: the last sequence whose meet this rank (a star bcast's
 *               root) finished, its mismatch mark stored before it
 *   offset 320  claim: the pieces of this rank's shared read handed out
 *               (2-rank allgather and alltoall, "Shared read" below)
 *   offset 328  reduction claim (member 0's window only): the unclaimed
 *               element range of a claimed reduction (see claimed)
 *   offset 336  staged: the bytes of this rank's input copied into its
 *               staging area so far (see "Staged input")
 *   offset 344  reduction finished (member 0's window only): sequence and
 *               elements of a claimed reduction reduced and written out
 *               (see "Ending a claimed reduction")
 *   offset 384  failed: the last sequence this rank gave up on, and why
 *               (its status at offset 392, written first)
 *   offset 448  event: bumped after each of the stores above (a futex
 *               word), and the number of members asleep on it
 *
 * Protocol of collective number s (all ranks of the communicator count s
 * alike; one collective at a time per communicator, in order):
 *   1. turn: wait until s-1 finished here.  Every member had then finished
 *      with s-1 (step 4), so nobody reads this header or the buffers of s-1
 *      any more: write the header, then store seq = s (release).
 *   2. meet: wait for every member's header of s (acquire) and compare the
 *      signatures (collective, bytes, datatype and op of reductions, root):
 *      on any difference every rank sees it before anyone reads a byte and
 *      ends with PLX_ERR_MISMATCH (steps 3-4 without the work).
 *   3. work: a list of segments (below), one piece (PLX_DIRECT_PIECE bytes)
 *      per advance call, so a progress pass stays short (~20-50 us) and a
 *      sleeping compute thread gets its core back quickly.
 *   4. drain: store done = s; wait until every member's done >= s (nobody
 *      reads or writes this rank's buffers any more: the user may reuse
 *      them); only then finish.
 * Ranks that took another path for the same call never write a header:
 * the call records (lib/coll/call_record.c) end the wait (plx_direct_abort,
 * before any buffer is touched).
 * Two waits per collective (meet, drain), whatever the rank count: each
 * costs a cache-line round trip, or a scheduler slice when ranks
 * outnumber cores.  Then a waiting rank yields for up to 1 ms (the
 * engine, lib/engine/request.c: its core stays busy and goes to a runnable rank;
 * after 50 us of yields that ran nobody else, it sleeps at once, so that its
 * idle core pulls a queued rank over)
 * and then sleeps on the futex word of the member it waits for
 * (plx_direct_sleep), which that member wakes after its store, instead of
 * a nanosleep round robin among the waiters.
 *
 * Short steps beside compute.  A lone caller (op->solo) takes longer steps:
 * larger reduction pieces, and a copy of up to DIRECT_WHOLE_MAX in one call.
 * While a task graph's compute chains run on this process's worker threads
 * (ctx->compute_beside, counted by lib/graph/pool.c), every step is one
 * PLX_DIRECT_PIECE instead.  Why: the kernel may run a system call to its
 * end without preemption (PREEMPT_NONE here), so a compute thread whose
 * sleep ends inside a process_vm_readv waits for the call to end.  Measured
 * on a thread sleeping 400 us beside a thread copying in a loop on one CPU:
 * 128 KiB reads delayed the wake-up by 1-2 us, like memcpy, 512 KiB reads by
 * 8-10 us, 2 MiB reads by 57-72 us.  With short steps the 2-rank
 * graph_bench -m overlap ran at 1.018-1.046 of its ideal (medians, three
 * A/Bs) against 1.050-1.064 with the long ones (perf/RESULTS.md, issue 11,
 * session 14's lead).  Not where ranks outnumber cores (long_steps).  The
 * shared reads of large allgather / alltoall blocks (claims of
 * DIRECT_SHARE_PIECE, numbered alike on every rank) keep their size.
 *
 * Segments.  COPY: read bytes [roff, roff+len) of one member's published
 * buffer into a local destination.  WRITE: the other direction
 * (process_vm_writev), into a member's output buffer.  REDUCE: for bytes
 * [roff, roff+len) of every member's input, reduce in member order 0..p-1
 * into a local destination (or a private buffer then written to a
 * member), piece by piece (the first remote operand read straight into the
 * destination, later ones into an L2-sized buffer and reduced while hot);
 * with fanout, each finished piece is then written, still hot, into every
 * other member's output.  Each element is reduced exactly once, by one
 * rank, in a fixed order, and copied from there: results are bitwise the
 * same on every rank.  Who copies what is chosen so that every rank moves
 * about the same number of bytes (with 2 ranks both cores work on every
 * collective, also the rooted ones):
 *
 *   allreduce       REDUCE my slice of count/p into recvbuf, fanning each
 *                   piece out to every other rank's recvbuf (so nobody
 *                   waits for another's progress inside the collective);
 *                   3+ ranks, and 2 ranks from 2 MiB: pieces claimed
 *                   from either end instead of fixed slices (see
 *                   claimed), also for reduce
 *   reduce_scatter  REDUCE block me into recvbuf (in place, rank > 0: into
 *                   scratch, copied to recvbuf after the drain, because
 *                   rank 0 reads block 0 of that very buffer)
 *   reduce          each rank REDUCEs its slice and writes it into the
 *                   root's recvbuf (2 ranks below 2 MiB: the root's slice
 *                   is the larger, reduce2_split; in place that slice of
 *                   the root's input is read by its owner only, piece by
 *                   piece before writing it; claimed pieces elsewhere, as
 *                   allreduce's, each written into the root's recvbuf)
 *   bcast           part k (count/p) of every non-root's buffer is rank k's
 *                   job: the root WRITEs its part to all; a non-root COPYs
 *                   its part from the root and WRITEs it to the others
 *                   (ranks outnumbering cores, up to DIRECT_BCAST_HEAD_MAX:
 *                   a non-root COPYs all but the last count/p from the
 *                   root, the root WRITEs that tail to every non-root;
 *                   above it up to DIRECT_BCAST_STAR_MAX: a star, below)
 *   allgather       COPY every member's block
 *   alltoall        COPY block me of every member's input (in place: the
 *                   input is first copied to scratch, since each rank's
 *                   recvbuf is also the input its peers read)
 *   gather, scatter each block is split between the root and the other
 *                   end so both copy (head_bytes: the root, which also
 *                   copies its own block, takes the smaller share)
 *
 * Star collectives (scatter and gather with more ranks than cores, 3+
 * ranks, not a node-local phase).  Each non-root moves its whole block
 * (scatter: reads it from the root's input; gather: writes it into the
 * root's output), the root only copies its own: nobody but the root has a
 * buffer another member touches.  So a non-root skips the drain's wait
 * (it stores done = s and finishes): with ranks outnumbering cores each
 * wait for a member that is not running costs a scheduler pass, and the
 * drain was one of the two per collective.  It may then publish its
 * header of s+1 while a member still meets s, so the meet of a star
 * collective takes "done >= s" (whatever its header) for a member that
 * met s and finished it; its signature can no longer be read, so a rank
 * that found a mismatch in its meet stores mismatch = s before done = s
 * and the later ones take that mark as the mismatch (the first rank to
 * meet saw every header; by induction every rank sees the difference or
 * the mark, and nobody touches a buffer).  The root still drains: its
 * buffers are read or written by every member.
 * Star bcast (ranks outnumbering cores, 3+ ranks, DIRECT_BCAST_HEAD_MAX <
 * N <= DIRECT_BCAST_STAR_MAX): the root WRITEs the whole buffer into one
 * non-root (star_written: the member before it), every other non-root
 * COPYs it from the root: p-1 system calls of N instead of p(p-1) of N/p,
 * and the root works instead of waiting.  A non-root needs the root's
 * buffer and nobody else's, so it waits for the root alone: its meet
 * reads the root's header (its signature compared there) and then the
 * root's go = s, which the root stores after its own meet of every
 * member (its mismatch mark first, if it found a difference): the
 * four-way wait of the meet becomes one wait for one rank.  The members
 * are then all past their turn of s, so the root copied every header
 * before anyone can leave s (a non-root that found the root's signature
 * different leaves at once with its mark, as in a star collective).  The
 * readers skip the drain's wait like the other stars; the written member
 * waits in its drain for the root's done alone.
 * Shared read (2-rank allgather and alltoall above DIRECT_WHOLE_MAX, each
 * rank on its own core, no progress thread).  Reading the peer's block is
 * most of a rank's time, and one rank is often 10-30 % slower than the other
 * for a whole launch (its core or its memory placement; per-phase probe in
 * perf/RESULTS.md "Issue 11, 2 ranks, allgather and alltoall: where the
 * time goes"), so the faster one waited in the drain.  Now the block moves
 * in DIRECT_SHARE_PIECE pieces numbered by a counter in the reader's window:
 * the reader claims pieces one at a time, and a rank done with its own work
 * claims the reader's remaining pieces and writes them into the reader's
 * recvbuf (process_vm_writev of its own input) instead of waiting.  The
 * reader resets its counter to seq << 24 in its turn, before publishing
 * the header (or to "none left" when it reads alone), so a claim from
 * another collective or from a rank that reads alone finds nothing.
 *
 * Staged input (allgather, alltoall and 2-rank reduce_scatter, each
 * member decides for itself).
 * A process_vm_readv pins the owner's pages before it copies, ~40 % of
 * the read at 1-4 MiB on 4 KiB pages (perf/RESULTS.md, issue 11, session
 * s9x), so two memcpys through shared memory beat it there.  A member whose
 * peers' part of its input fits its staging area (the transport's
 * coll_stage op, PLX_SHM_DIRECT_STAGE; alltoall, which copies its own
 * block besides, half of it), and that area is free (one collective at a
 * time per rank, whatever the communicator), and, where a progress thread
 * runs, fits one piece (then staged whole before the header: see
 * stage_take), and whose input is not on huge pages where huge_read says
 * so (2-rank allgather, alltoall and reduce_scatter, allgather at 3-4 and
 * alltoall at 3-5 ranks; direct_thp.c: there the CMA read pins little and
 * one read beats two copies), says so in its
 * header (staged) and copies that part into the area piece by piece
 * (DIRECT_STAGE_PIECE), storing the bytes staged so far after each piece
 * (release); its readers memcpy from the area what the counter covers
 * (acquire) instead of reading its buffer.  Allgather stages its block,
 * writing each piece into its own recvbuf slot too (out of place: one read
 * of the send block for both); alltoall stages the blocks of its peers, the
 * block of member me-1 first, then me-2, ... (each reader's first read is
 * then the first staged).  Staging starts while this rank waits in the meet
 * and goes on one piece per work step, before its own reads, so the
 * members copy at once; a work step never waits for a counter (it returns,
 * and the next step stages or reads), so ranks never wait on each other in
 * a cycle.  2-rank reduce_scatter from PLX_DIRECT_STAGE_RS (512 KiB
 * blocks) stages block p of its input, which the peer p reduces straight
 * from the area (its op over its own block and the staged piece, into its
 * destination).  Measured faster there only: 1-4 MiB reduce_scatter
 * 0.75-0.93x the time, 256-512 KiB 1.14-1.28x (so the threshold); reduce
 * and allreduce staged the peer's slice the same way and were 1.06-1.44x
 * slower at 1-4 MiB (allreduce 4 MiB 1.27x, 1 MiB 1.0x): the owner's copy
 * is a pass the CMA path does not make, and on huge pages (PLX_DIRECT_THP)
 * a CMA read pins little (perf/RESULTS.md, issue 11, session s11r).
 * The counter is reset before the header of s goes out, and the
 * area is taken again only after the drain (nobody reads it any more);
 * after a failure it is never taken again.
 *
 * Closed numbers (the node-local phases of lib/coll/hier.c).  A phase
 * takes its number when its schedule is built: 1 + DIRECT_PHASES x the
 * schedule's collective sequence number + its index in the schedule, so
 * node-mates that built different schedules (ranks that disagree on the
 * call) leave the same numbers unused and stay in step afterwards; a
 * rank's turn comes after the number it took before (op->prev), not s-1.
 * A phase whose schedule ended before the phase published its header
 * (cancel) becomes a ghost: it publishes a header marked DIRECT_GHOST
 * carrying the schedule's status, and done = s, as soon as every number
 * this rank took before it is finished or was ended early too.  A member
 * meeting a ghost header at or above s, or a real header above s (that
 * member built no phase s: the ranks disagree), knows that nobody can
 * work on s (work needs every member's real header of s, and a rank's
 * real header never goes back below a ghost of its own): it ends s at
 * once with the ghost's status (PLX_ERR_MISMATCH for a skip) and writes
 * done = s.  The number is closed (local_done = s: the next turn) once
 * every member's done >= s or its header is above s; the next
 * collective's turn checks that (no thread of its own).  Nothing is
 * marked broken: later collectives run.
 *
 * In-place hazards: a slice the owner reduces in place is accumulated in a
 * private buffer and copied over its input piece only when all operands of
 * that piece were read (member 0, and member 1 whose input is consumed by
 * the first step, accumulate in the input itself: the input is read
 * nowhere after); slice j of a member's in-place buffer is read only
 * by slice j's owner, which writes the result piece over it after reading
 * it (allreduce, reduce).
 */
#include "node_direct.h"
#include "direct_thp.h"
#include "core/config.h"
#include "core/copy_stream.h"
#include "core/reduce.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <limits.h>
#include <time.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include "direct_probe.h"

#define DIRECT_CHANNEL0  16          /* windows 16.. are this file's (0..15: shm_slots) */
#define DIRECT_DONE_OFF  256
#define DIRECT_MM_OFF    264           /* the mismatch mark of star collectives */
#define DIRECT_GO_OFF    272           /* a star bcast root met every member (see "Star bcast") */
#define DIRECT_CLAIM_OFF 320
#define DIRECT_RCLAIM_OFF 328
#define DIRECT_STAGED_OFF 336
#define DIRECT_RFIN_OFF  344
/* a staged input moves in pieces of this size (see "Staged input") */
#define DIRECT_STAGE_PIECE (256u << 10)
/* an allgather piece this large, at 3-4 ranks, is staged by
 * plx_copy_timed (see stage_piece) */
#define DIRECT_STREAM_MIN (64u << 10)
#define DIRECT_INTO_DST_MIN (128u << 10) /* reduce_piece: member 0 reads into the destination */
#define DIRECT_FAIL_OFF  384
#define DIRECT_EVENT_OFF 448
#define DIRECT_WIN_MIN   512
#define DIRECT_PIECE_MIN (32u << 10)   /* below this the system call per piece dominates */
/* The piece when ranks outnumber cores and no progress thread runs (and
 * PLX_DIRECT_PIECE is not set): a rank then has its core for a scheduler
 * slice and nobody else waits on its lock, so a short pass buys nothing,
 * and each piece costs a system call per peer plus a pass through the
 * wait loop.  4 ranks on 2 cores, 1 MiB against 128 KiB: reduce 1 MiB
 * 0.6-0.8x the time, allreduce 0.7-0.85x, bcast 4 MiB 0.7x, alltoall and
 * allgather 0.9x (perf/RESULTS.md, issue 11, "yield, then sleep"). */
#define DIRECT_PIECE_OVERSUB (1u << 20)
/* bcast with ranks outnumbering cores (3+ ranks) up to this size: each
 * non-root reads the head (all but 1/p) of the buffer from the root in one
 * call, the root writes the tail into every non-root: 2(p-1) system
 * calls in all instead of p(p-1), each a fixed cost of a few us (a 64 KiB
 * read took ~8 us here, a 256 KiB one ~17 us).  4 ranks on 2 cores, q1 /
 * median of the time against the split: 128 KiB 0.80x / 0.84x and 0.84x /
 * 0.92x in two windows; from 192 KiB no better (192 KiB 1.04x / 1.10x,
 * 256 KiB 0.87x / 0.91x and 0.99x / 1.06x, 512 KiB 1.17x, 1 MiB 1.2x): the
 * root's tails and the long reads cost more than the calls saved
 * (perf/RESULTS.md "Issue 11: 4 ranks on 2 cores, 256 KiB-4 MiB against
 * Open MPI", session s8f). */
#define DIRECT_BCAST_HEAD_MAX (128u << 10)
/* bcast with ranks outnumbering cores (3+ ranks) above DIRECT_BCAST_HEAD_MAX
 * and up to this size: a star (see "Star bcast").  4 ranks on 2 cores,
 * time against the quarters by q1 / median: 256 KiB 0.80 / 0.89 and 0.80 /
 * 0.83 in two windows; 512 KiB 1.17 / 1.05 and 1 MiB 1.27 / 1.19 (three
 * readers of the same pages) (perf/RESULTS.md "Issue 11: 4 ranks on 2
 * cores, ... star bcast", session s9f). */
#define DIRECT_BCAST_STAR_MAX (256u << 10)
#define DIRECT_GHOST     (-1)          /* header coll of a closed number (root: its status) */
#define DIRECT_PHASES    4             /* numbers per schedule for its node-local phases */
#define DIRECT_SPIN_S    1e-3          /* longest pure spin of one wait (see spin_on) */
#define DIRECT_REDUCE_ROOT_NUM 36     /* 2-rank reduce: the root's share of the elements, /64 */
#define DIRECT_SPIN_SHARE 0.25         /* ... and at most this share of the own work's time */
#define DIRECT_WHOLE_MAX (2u << 20)    /* a copy segment up to this size: one call (see work) */
#define DIRECT_AVG_CHUNK (8u << 10)    /* 2-rank average: reduce and divide this much at a time */
#define DIRECT_PIECE_SOLO (512u << 10) /* a reduction piece at 2 ranks with a core each and no
                                          progress thread (PLX_DIRECT_PIECE unset): see setup */
/* A 2-rank allreduce of at least DIRECT_BIG_FROM bytes (its 4 buffers are
 * 4x the 32 MiB L3 or more): each operand is read into the bounce buffer and
 * reduced from there into recvbuf, instead of member 0 reading into recvbuf
 * and adding in place, and a lone caller's piece is DIRECT_PIECE_BIG.  The
 * kernel's copy into a recvbuf piece that is in no cache measured 1.5x
 * slower than into the hot bounce buffer (per-phase probe at 64 MiB, 2.8
 * against 4.2 ms per call), more than the reduction's stores gain there.
 * Against main, three interleaved A/Bs: 64 MiB 0.84-0.90 the time by q1,
 * 0.93-1.07 by median (bimodal launches), 32 MiB 0.92-0.95 / 0.91-0.96;
 * 16 MiB was not faster (probe 1.04x the work), so it keeps the default
 * (perf/RESULTS.md, issue 11, session s19a). */
#define DIRECT_BIG_FROM (32u << 20)
#define DIRECT_PIECE_BIG (1u << 20)
/* the piece of a shared read (below): a copy of up to DIRECT_WHOLE_MAX is one
 * call.  2 MiB, not 512 KiB (this and the reductions' piece until s12a): 4
 * reads per 8 MiB block instead of 16, and still 4-16 claims at 16-64 MiB
 * for the faster rank to take over; 2-rank allgather and alltoall 16-64 MiB
 * 0.93-0.98x the time in one window of 10 launches per arm, 0.90-0.95x
 * (alltoall 16 MiB 1.04x by q1, bimodal) in another of 8 (perf/RESULTS.md,
 * issue 11, session s12a) */
#define DIRECT_SHARE_PIECE DIRECT_WHOLE_MAX
/* a buffer from this size goes on huge pages on its PLX_DIRECT_THP-th
 * call (direct_thp.c, thp_buffers).  512 KiB, not 1 MiB: the input a
 * 2-rank allgather of 1 MiB publishes is 512 KiB, and pinning its 4 KiB
 * pages is ~40 % of the peer's read (perf/RESULTS.md, issue 11, session
 * s9x: 0.6-0.67x the time on 2 MiB-aligned buffers; allreduce and bcast
 * 512 KiB 0.48-0.62x) */
#define DIRECT_THP_FROM  (512u << 10)
#define DIRECT_CLAIM_NONE (1ull << 23) /* shared read: a claim this far past seq << 24 gets nothing */

enum { DIRECT_TURN = 0, DIRECT_MEET, DIRECT_WORK, DIRECT_DRAIN, DIRECT_DONE };
enum { ADDR_IN = 0, ADDR_OUT, ADDR_AUX };
enum { SEG_COPY = 1, SEG_WRITE, SEG_REDUCE };

typedef struct direct_hdr {
    uint64_t seq;                    /* written last, with release order */
    uint64_t addr[3];                /* input, output, scratch in the owner's address space */
    uint64_t bytes;                  /* count x element size */
    int32_t coll, dt, op, root;
    int32_t staged, pad;             /* this member's input is staged (see "Staged input") */
} direct_hdr_t;

typedef struct direct_seg {
    int kind;
    int peer;                        /* COPY: member read from; WRITE: member written to;
                                        REDUCE: -1, or the member the result is written to */
    int which;                       /* ADDR_* of that member's buffer */
    size_t roff, len;                /* COPY/REDUCE: bytes in the members' buffer(s) */
    size_t woff;                     /* WRITE, remote REDUCE: offset in the peer's buffer */
    char *dst;                       /* COPY, local REDUCE: local destination */
    const char *src;                 /* WRITE: local source */
    int fanout;                      /* REDUCE: write each piece to every other member's
                                        output at woff too */
} direct_seg_t;

#define SEG_READ(from, which, roff, len, dst) \
    ((direct_seg_t){ SEG_COPY, (from), (which), (roff), (len), 0, (dst), NULL, 0 })
#define SEG_PUSH(to, which, woff, src, len) \
    ((direct_seg_t){ SEG_WRITE, (to), (which), 0, (len), (woff), NULL, (src), 0 })
#define SEG_RED(roff, len, dst, fanout) \
    ((direct_seg_t){ SEG_REDUCE, -1, ADDR_OUT, (roff), (len), (roff), (dst), NULL, (fanout) })
#define SEG_RED_TO(to, roff, len, woff) \
    ((direct_seg_t){ SEG_REDUCE, (to), ADDR_OUT, (roff), (len), (woff), NULL, NULL, 0 })

struct node_direct {
    int n, me;
    unsigned char **win;             /* [n] control area of each member */
    int *world;                      /* [n] world rank of each member */
    const plx_tl_ops_t **ops;        /* [n] transport reading from each member */
    void **tl;                       /* [n] its state */
    uint64_t (*addr)[3];             /* [n] addresses published for the current collective */
    int *staged;                     /* [n] each member staged its input for it */
    unsigned char **stg;             /* [n] each member's staging area (NULL: none) */
    size_t stg_cap;                  /* the size of mine (0: I never stage) */
    size_t piece;
    size_t piece_solo;               /* the piece while no progress thread runs (setup) */
    int piece_set;                   /* PLX_DIRECT_PIECE given: every piece is that size */
    unsigned char *acc, *tmp;        /* piece-sized buffers (in-place accumulator, operand) */
    void *scratch;                   /* reused by the collectives of this comm, one at a time */
    size_t scratch_cap;
    uint64_t next_seq;
    uint64_t local_done;
    int spin;                        /* a core for every member: waits may spin (spin_on) */
    int oversub;                     /* more ranks on this node than cores: waits sleep */
    int lone_sleep;                  /* at least twice as many: a waiter alone on its core
                                        sleeps early (lib/engine/request.c) */
    double work_s;                   /* this rank's work time in the last collective */
    int broken;
    plx_status_t broken_status;
    int hdr_open;                    /* the last collective ended without the drain's wait
                                      * (a star's non-root): members may still copy its header */
    uint64_t fin_open;               /* the last collective, a claimed reduction, ended on its
                                        finished count: its members' done is waited for at the
                                        next turn (see "Ending a claimed reduction") */
    struct direct_close *close;      /* numbers this rank ended without the drain (above) */
    int nclose, close_cap;
    plx_thp_cache_t thp;             /* buffers seen, for their huge pages (direct_thp.c) */
    uint64_t cs64;                   /* the last phase's schedule number, widened to 64 bits */
    uint32_t cs_last;
    int cs_k, cs_init;               /* phases of that schedule so far - 1; any yet */
    size_t stage_rs;                 /* 2-rank reduce_scatter stages from this block size
                                        (PLX_DIRECT_STAGE_RS, see "Staged input") */
    plx_stream_rule_t stream;        /* PLX_DIRECT_STREAM: allgather's staging copy */
};

/* A number this rank ended early: closed once every member is past it. */
struct direct_close {
    uint64_t seq, prev;
    plx_status_t st;
    int ghost;                       /* its header is still to be published */
};

static inline direct_hdr_t *hdr_of(unsigned char *w) { return (direct_hdr_t *)w; }
static inline uint64_t *done_of(unsigned char *w) { return (uint64_t *)(w + DIRECT_DONE_OFF); }
static inline uint64_t *mm_of(unsigned char *w) { return (uint64_t *)(w + DIRECT_MM_OFF); }
static inline uint64_t *go_of(unsigned char *w) { return (uint64_t *)(w + DIRECT_GO_OFF); }
static inline uint64_t *claim_of(unsigned char *w) { return (uint64_t *)(w + DIRECT_CLAIM_OFF); }
static inline uint64_t *fail_of(unsigned char *w) { return (uint64_t *)(w + DIRECT_FAIL_OFF); }
static inline int32_t *fail_status_of(unsigned char *w) { return (int32_t *)(w + DIRECT_FAIL_OFF + 8); }
static inline uint64_t *rclaim_of(unsigned char *w) { return (uint64_t *)(w + DIRECT_RCLAIM_OFF); }
static inline uint64_t *rfin_of(unsigned char *w) { return (uint64_t *)(w + DIRECT_RFIN_OFF); }
static inline uint64_t *staged_of(unsigned char *w) { return (uint64_t *)(w + DIRECT_STAGED_OFF); }
static inline uint32_t *event_of(unsigned char *w) { return (uint32_t *)(w + DIRECT_EVENT_OFF); }
static inline uint32_t *sleepers_of(unsigned char *w) { return (uint32_t *)(w + DIRECT_EVENT_OFF + 4); }

/* After a store of seq, done or failed: wake the members asleep on it
 * (plx_direct_sleep).  Sequentially consistent against the sleeper's
 * count-then-recheck, so either it sees the store or this sees it. */
static void announce_at(unsigned char *w)
{
    __atomic_add_fetch(event_of(w), 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(sleepers_of(w), __ATOMIC_SEQ_CST))
        syscall(SYS_futex, event_of(w), FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

static void announce(struct node_direct *nd) { announce_at(nd->win[nd->me]); }

/* Tell the peers that this rank gave up on collective seq with status st. */
static void publish_failure(struct node_direct *nd, uint64_t seq, plx_status_t st)
{
    __atomic_store_n(fail_status_of(nd->win[nd->me]), (int32_t)st, __ATOMIC_RELAXED);
    __atomic_store_n(fail_of(nd->win[nd->me]), seq, __ATOMIC_RELEASE);
    announce(nd);
}

/* Remember that this rank ended number seq early (ghost: its header is
 * not out yet); 0 if out of memory. */
static int close_add(struct node_direct *nd, uint64_t seq, uint64_t prev, plx_status_t st, int ghost)
{
    if (nd->nclose == nd->close_cap) {
        int cap = nd->close_cap ? 2 * nd->close_cap : 4;
        struct direct_close *c = realloc(nd->close, (size_t)cap * sizeof *c);
        if (!c) return 0;
        nd->close = c;
        nd->close_cap = cap;
    }
    nd->close[nd->nclose++] = (struct direct_close){ seq, prev, st, ghost };
    return 1;
}

/* Has member m finished with number s (or never taken part in it)? */
static int past(const struct node_direct *nd, int m, uint64_t s)
{
    unsigned char *w = nd->win[m];
    return __atomic_load_n(done_of(w), __ATOMIC_ACQUIRE) >= s ||
           __atomic_load_n(&hdr_of(w)->seq, __ATOMIC_ACQUIRE) > s ||
           __atomic_load_n(fail_of(w), __ATOMIC_ACQUIRE) >= s;
}

/* The early-ended number whose turn follows number at, or NULL. */
static struct direct_close *close_after(struct node_direct *nd, uint64_t at)
{
    for (int i = 0; i < nd->nclose; i++)
        if (nd->close[i].prev == at) return &nd->close[i];
    return NULL;
}

/* Move the early-ended numbers along.  A ghost's header goes out as soon
 * as every number this rank took before it was ended early too (no real
 * header of this rank is needed any more: nobody works on those numbers;
 * a member still at one of them sees a ghost above it and ends with its
 * status).  A number is closed, in order, once every member is past it.
 * Never waits. */
static void closes_run(struct node_direct *nd)
{
    struct direct_close *c;
    for (uint64_t at = nd->local_done; (c = close_after(nd, at)) != NULL; at = c->seq) {
        if (!c->ghost) continue;
        direct_hdr_t *h = hdr_of(nd->win[nd->me]);
        memset(h->addr, 0, sizeof h->addr);
        h->bytes = 0;
        h->coll = DIRECT_GHOST;
        h->dt = h->op = 0;
        h->root = (int32_t)c->st;
        __atomic_store_n(&h->seq, c->seq, __ATOMIC_RELEASE);
        __atomic_store_n(done_of(nd->win[nd->me]), c->seq, __ATOMIC_RELEASE);
        announce(nd);
        c->ghost = 0;
    }
    while ((c = close_after(nd, nd->local_done)) != NULL && !c->ghost) {
        for (int m = 0; m < nd->n; m++)
            if (m != nd->me && !past(nd, m, c->seq)) return;
        nd->local_done = c->seq;
        *c = nd->close[--nd->nclose];
    }
}

/* ---- setup --------------------------------------------------------------- */
static void nd_free(struct node_direct *nd)
{
    if (!nd) return;
    free(nd->win);
    free(nd->world);
    free(nd->ops);
    free(nd->tl);
    free(nd->addr);
    free(nd->staged);
    free(nd->stg);
    free(nd->acc);
    free(nd->tmp);
    free(nd->scratch);
    free(nd->close);
    free(nd);
}

/* The state of a collective among comm ranks members[0..n) (NULL: all of
 * comm), this rank among them; NULL if they cannot run one. */
static struct node_direct *setup(plx_comm_t comm, const int *members, int n)
{
    plx_context_t ctx = comm->ctx;
    if (comm->id >= 16) return NULL;
    struct node_direct *nd = calloc(1, sizeof *nd);
    if (!nd) return NULL;
    nd->win = calloc((size_t)n, sizeof *nd->win);
    nd->world = calloc((size_t)n, sizeof *nd->world);
    nd->ops = calloc((size_t)n, sizeof *nd->ops);
    nd->tl = calloc((size_t)n, sizeof *nd->tl);
    nd->addr = calloc((size_t)n, sizeof *nd->addr);
    nd->staged = calloc((size_t)n, sizeof *nd->staged);
    nd->stg = calloc((size_t)n, sizeof *nd->stg);
    nd->piece = ctx->cfg.direct_piece ? ctx->cfg.direct_piece : (128u << 10);
    nd->piece &= ~(size_t)63;   /* a multiple of every element size */
    if (nd->piece < 64) nd->piece = 64;
    nd->piece_set = ctx->cfg.direct_piece != 0;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    int local = ctx->size;
    if (ctx->node_of) {
        local = 0;
        for (int r = 0; r < ctx->size; r++) local += ctx->node_of[r] == ctx->node_of[ctx->rank];
    }
    if (local < n) local = n;
    /* The piece while no progress thread runs (nobody to give a core back
     * to), unless PLX_DIRECT_PIECE says otherwise:
     * - more ranks on the node than cores: 1 MiB, each piece costs the
     *   waiting peers a wake-up (DIRECT_PIECE_OVERSUB);
     * - 2 ranks, each on its own core: a reduction piece pays two system
     *   calls (read, then write of the result into the peer) of a few us
     *   each before its first byte, so a larger one is faster, while
     *   the piece, its operand and its destination still fit the 2 MiB
     *   L2 (perf/RESULTS.md "Issue 11, 2 ranks: one read per
     *   block, larger reduction pieces": allreduce 1-4 MiB 0.74-0.87x the
     *   time of 128 KiB pieces; 16-64 MiB within the noise). */
    nd->piece_solo = nd->piece;
    nd->stage_rs = 512u << 10;   /* PLX_DIRECT_STAGE_RS (checked by plx_init) */
    plx_env_size("PLX_DIRECT_STAGE_RS", &nd->stage_rs);
    plx_stream_rule_init(&nd->stream, "PLX_DIRECT_STREAM");
    if (!nd->piece_set && ncpu > 0) {
        if (local > ncpu) nd->piece_solo = DIRECT_PIECE_OVERSUB;
        else if (n == 2) nd->piece_solo = DIRECT_PIECE_SOLO;
    }
    size_t bounce = nd->piece_solo > nd->piece ? nd->piece_solo : nd->piece;
    if (nd->piece_solo == DIRECT_PIECE_SOLO && bounce < DIRECT_PIECE_BIG) bounce = DIRECT_PIECE_BIG;
    nd->acc = aligned_alloc(64, bounce);
    nd->tmp = aligned_alloc(64, bounce);
    if (!nd->win || !nd->world || !nd->ops || !nd->tl || !nd->addr || !nd->staged || !nd->stg ||
        !nd->acc || !nd->tmp)
        goto no;
    nd->me = -1;
    for (int k = 0; k < n; k++) {
        int r = members ? members[k] : k;
        int w = comm->world_rank[r];
        if (r == comm->rank) nd->me = k;
        const plx_tl_ops_t *ops = ctx->tl[ctx->peer_tl[w]].ops;
        void *tl = ctx->tl[ctx->peer_tl[w]].state;
        if (!ops->coll_window || !ops->peer_read || !ops->peer_write) goto no;
        size_t b = 0;
        nd->win[k] = ops->coll_window(tl, DIRECT_CHANNEL0 + (int)comm->id, w, &b);
        if (!nd->win[k] || b < DIRECT_WIN_MIN) goto no;
        if (r != comm->rank && ops->peer_read(tl, w, NULL, 0, 0) != PLX_SUCCESS) {
            plx_info("direct: comm %u cannot read rank %d (world %d) with one copy; the "
                     "selector's next rules serve it", comm->id, r, w);
            goto no;
        }
        if (ops->coll_stage) {
            size_t sb = 0;
            nd->stg[k] = ops->coll_stage(tl, w, &sb);
            if (r == comm->rank) nd->stg_cap = nd->stg[k] ? sb : 0;
        }
        nd->world[k] = w;
        nd->ops[k] = ops;
        nd->tl[k] = tl;
    }
    if (nd->me < 0) goto no;
    nd->n = n;
    /* every rank of the node counts (local, above), not only this comm's
     * members: two 2-rank comms of a 4-rank node on 2 cores share them too */
    nd->spin = ncpu > 0 && local <= ncpu;
    nd->oversub = ncpu > 0 && local > ncpu;
    /* with two ranks or more per core every core has company when they are
     * spread evenly, so a waiter whose yields find its core empty sits on a
     * core that a queued rank should have; with fewer (3 ranks on 2 cores)
     * one rank is always alone, and sleeping early only cost wake-ups: 3
     * ranks 1-4 MiB 1.06-1.23x the time (perf/RESULTS.md, session s13b) */
    nd->lone_sleep = ncpu > 0 && local >= 2 * ncpu;
    /* A reused id finds its window holding an earlier comm's numbers: the
     * members agreed on a base above every number they ever wrote
     * (lib/api/comm.c), so no stale seq, done or failed mark passes for a new one. */
    nd->next_seq = comm->slots_seq_base + 1;
    nd->local_done = comm->slots_seq_base;
    return nd;
no:
    nd_free(nd);
    return NULL;
}

int plx_direct_can_run(plx_comm_t comm, size_t bytes)
{
    (void)bytes;
    if (!comm) return 1;   /* printing the table: no communicator to judge */
    if (comm->direct_state == 0) {
        comm->direct = setup(comm, NULL, comm->size);
        comm->direct_state = comm->direct ? 1 : -1;
    }
    return comm->direct_state > 0;
}

int plx_direct_node_can_run(plx_comm_t comm, const int *members, int n)
{
    if (comm->direct_node_state == 0) {
        comm->direct_node = setup(comm, members, n);
        comm->direct_node_state = comm->direct_node ? 1 : -1;
    }
    return comm->direct_node_state > 0;
}

/* Every finished collective ended with its drain (every member's done >=
 * its seq): nobody reads this rank's window or buffers any more unless the
 * last one failed. */
static int nd_drained(const struct node_direct *nd)
{
    /* (numbers ended early read nobody's buffers) */
    return !nd || (!nd->broken && (nd->local_done == nd->next_seq - 1 || nd->nclose > 0));
}

/* The last collective ended on its finished count (see "Ending a claimed
 * reduction"): wait, up to timeout_s, for every member's done of it; 0 if
 * a member died or never stored it. */
static int fin_settled(plx_comm_t comm, struct node_direct *nd, double timeout_s)
{
    if (!nd || !nd->fin_open) return 1;
    double t0 = plx_now();
    plx_backoff_t bo;
    plx_backoff_reset(&bo);
    for (;;) {
        int m = 0;
        while (m < nd->n && (m == nd->me || __atomic_load_n(done_of(nd->win[m]), __ATOMIC_ACQUIRE) >= nd->fin_open))
            m++;
        if (m == nd->n) {
            nd->fin_open = 0;
            return 1;
        }
        if (plx_peer_status(comm->ctx, nd->world[m]) != PLX_SUCCESS || plx_now() - t0 > timeout_s) return 0;
        plx_backoff_idle(&bo);   /* as plx_slots_drain waits */
    }
}

int plx_direct_drained(plx_comm_t comm, double timeout_s)
{
    return fin_settled(comm, comm->direct, timeout_s) && fin_settled(comm, comm->direct_node, timeout_s) &&
           nd_drained(comm->direct) && nd_drained(comm->direct_node);
}

uint64_t plx_direct_last_seq(plx_comm_t comm)
{
    uint64_t a = comm->direct ? comm->direct->next_seq - 1 : 0;
    uint64_t b = comm->direct_node ? comm->direct_node->next_seq - 1 : 0;
    return a > b ? a : b;
}

void plx_direct_release(plx_comm_t comm)
{
    nd_free(comm->direct);
    nd_free(comm->direct_node);
    comm->direct = comm->direct_node = NULL;
    comm->direct_state = comm->direct_node_state = 0;
}

/* The member a star bcast's root writes into (see "Star bcast"). */
static int star_written(const direct_op_t *op)
{
    return (op->a.root + op->nd->n - 1) % op->nd->n;
}

/* A star bcast (see "Star bcast")?  Only the size, the rank count and the
 * node decide it, so every member agrees. */
static int star_bcast(const direct_op_t *op)
{
    return op->a.coll == PLX_COLL_BCAST && op->nd->oversub && op->nd->n > 2 &&
           op->bytes > DIRECT_BCAST_HEAD_MAX && op->bytes <= DIRECT_BCAST_STAR_MAX;
}

/* ---- the segments of each collective ------------------------------------- */
/* Slice i of count elements split over n ranks, in bytes. */
static size_t slice_off(const direct_op_t *op, int i)
{
    return coll_block_off(op->a.count, op->nd->n, i) * op->es;
}
static size_t slice_len(const direct_op_t *op, int i)
{
    return coll_block_len(op->a.count, op->nd->n, i) * op->es;
}

/* Reduce at 2 ranks: the element where the second member's slice starts.
 * The non-root reads-and-adds its slice and then also writes it into the
 * root (process_vm_writev of the hot piece), the root only reads-and-adds:
 * with equal halves the root waits in the drain for the non-root's
 * writes, so the root takes the larger share, DIRECT_REDUCE_ROOT_NUM / 64
 * of the elements (equal times: (1/RA + 1/W) / (2/RA + 1/W) with
 * perf/limits' read-and-add RA and hot-piece write W; per-rank work times
 * at 16 MiB came closest to equal at 0.56 of 0.44/0.5/0.56/0.62,
 * perf/RESULTS.md "Issue 11, 2-rank data path"). */
static size_t reduce2_split(const direct_op_t *op)
{
    size_t c = op->a.count, r = c / 64 * DIRECT_REDUCE_ROOT_NUM + c % 64 * DIRECT_REDUCE_ROOT_NUM / 64;
    return op->a.root == 0 ? r : c - r;
}
static size_t red_off(const direct_op_t *op, int i)
{
    if (op->nd->n != 2) return slice_off(op, i);
    return i == 0 ? 0 : reduce2_split(op) * op->es;
}
static size_t red_len(const direct_op_t *op, int i)
{
    if (op->nd->n != 2) return slice_len(op, i);
    size_t s = reduce2_split(op);
    return (i == 0 ? s : op->a.count - s) * op->es;
}

/* Gather and scatter split each block between its two ends so both
 * cores copy: the first head_bytes of a block are the root's to move, the
 * rest the other rank's.  Balanced work: each non-root moves (1-f) of its
 * block, the root f of p-1 blocks plus a local memcpy of its own block
 * (unless in place).  With a single-copy read at about 0.6 x memcpy speed
 * (perf/limits) equal times need f = 0.4/p; in place f = 1/p.  Not for
 * star collectives (more ranks than cores): there the split cost the
 * root a wait for every member's header and the non-roots a wait in the
 * drain for the root's writes, each a scheduler pass (perf/RESULTS.md,
 * "Issue 11: 4-rank scatter and gather as stars"). */
static size_t head_bytes(const direct_op_t *op)
{
    const coll_args_t *a = &op->a;
    size_t n = (size_t)op->nd->n, c = a->count;
    int root_in_place = coll_in_place(a->coll == PLX_COLL_GATHER ? a->sbuf : a->rbuf);
    size_t f_num = root_in_place ? 5 : 2;            /* f = f_num / (5 n) */
    size_t head = c / (5 * n) * f_num + c % (5 * n) * f_num / (5 * n);
    if (op->star) head = 0;   /* the non-root moves its whole block (star collectives, above) */
    /* scatter: the non-root reads the head, so the root's share is the tail */
    if (a->coll == PLX_COLL_SCATTER) head = c - head;
    return head * op->es;
}

/* Segment i of this rank's work; 0 when there is none. */
static int get_seg(const direct_op_t *op, int i, direct_seg_t *sg)
{
    const struct node_direct *nd = op->nd;
    const coll_args_t *a = &op->a;
    int n = nd->n, me = nd->me, root = a->root;
    size_t N = op->bytes;
    char *rbuf = a->rbuf;
    if (i >= n) return 0;
    int j = (me + i) % n;   /* the member of segment i, starting with myself */
    switch (a->coll) {
    case PLX_COLL_ALLREDUCE:
        /* my slice, each piece fanned out to everyone as soon as it is done */
        if (i > 0) return 0;
        *sg = SEG_RED(slice_off(op, me), slice_len(op, me), rbuf + slice_off(op, me), 1);
        return 1;
    case PLX_COLL_REDUCE_SCATTER:
        if (i > 0) return 0;
        *sg = SEG_RED((size_t)me * N, N, (coll_in_place(a->sbuf) && me != 0) ? (char *)op->aux : rbuf, 0);
        return 1;
    case PLX_COLL_REDUCE:
        /* my slice of the result, straight into the root's recvbuf */
        if (i > 0) return 0;
        if (me == root) *sg = SEG_RED(red_off(op, me), red_len(op, me), rbuf + red_off(op, me), 0);
        else *sg = SEG_RED_TO(root, red_off(op, me), red_len(op, me), red_off(op, me));
        return 1;
    case PLX_COLL_BCAST:
        if (op->star) {   /* each non-root reads the whole buffer from the root */
            int x = star_written(op);
            if (i > 0 || me == x) return 0;
            if (me == root) {
                *sg = SEG_PUSH(x, ADDR_OUT, 0, rbuf, N);
            } else {
                *sg = SEG_READ(root, ADDR_OUT, 0, N, rbuf);
            }
            return 1;
        }
        if (nd->oversub && n > 2 && N <= DIRECT_BCAST_HEAD_MAX) {
            size_t h = (a->count - a->count / (size_t)n) * op->es;   /* the non-roots' share */
            if (me == root) {
                if (i == 0) *sg = SEG_PUSH(me, ADDR_OUT, 0, NULL, 0);
                else *sg = SEG_PUSH(j, ADDR_OUT, h, rbuf + h, N - h);
            } else {
                if (i > 0) return 0;
                *sg = SEG_READ(root, ADDR_OUT, 0, h, rbuf);
            }
            return 1;
        }
        /* part k of every non-root's buffer is rank k's job: the root
         * writes its part to all, a non-root reads its part from the root
         * and passes it on to the other non-roots */
        if (me == root) {
            if (i == 0) *sg = SEG_PUSH(me, ADDR_OUT, 0, NULL, 0);
            else *sg = SEG_PUSH(j, ADDR_OUT, slice_off(op, me), rbuf + slice_off(op, me), slice_len(op, me));
        } else if (i == 0) {
            *sg = SEG_READ(root, ADDR_OUT, slice_off(op, me), slice_len(op, me), rbuf + slice_off(op, me));
        } else {
            size_t len = j == root ? 0 : slice_len(op, me);
            *sg = SEG_PUSH(j, ADDR_OUT, slice_off(op, me), rbuf + slice_off(op, me), len);
        }
        return 1;
    case PLX_COLL_ALLGATHER:
        /* segment 0 is my own block (nothing to do in place) */
        /* (staged: the staging wrote my block, see stage_piece) */
        *sg = SEG_READ(j, ADDR_IN, 0, (i == 0 && (coll_in_place(a->sbuf) || op->stage)) ? 0 : N,
                       rbuf + (size_t)j * N);
        return 1;
    case PLX_COLL_ALLTOALL:
        *sg = SEG_READ(j, ADDR_IN, (size_t)me * N, (i == 0 && coll_in_place(a->sbuf)) ? 0 : N,
                       rbuf + (size_t)j * N);
        return 1;
    case PLX_COLL_GATHER: {
        size_t h = head_bytes(op);
        if (me != root) {
            if (i > 0) return 0;
            *sg = SEG_PUSH(root, ADDR_OUT, (size_t)me * N + h, (const char *)op->in + h, N - h);
        } else if (i == 0) {
            *sg = SEG_READ(me, ADDR_IN, 0, coll_in_place(a->sbuf) ? 0 : N, rbuf + (size_t)me * N);
        } else {
            *sg = SEG_READ(j, ADDR_IN, 0, h, rbuf + (size_t)j * N);
        }
        return 1;
    }
    case PLX_COLL_SCATTER: {
        size_t h = head_bytes(op);   /* the non-root reads the head, the root writes the rest */
        if (me != root) {
            if (i > 0) return 0;
            *sg = SEG_READ(root, ADDR_IN, (size_t)me * N, h, rbuf);
        } else if (i == 0) {
            *sg = SEG_READ(me, ADDR_IN, (size_t)me * N, coll_in_place(a->rbuf) ? 0 : N, rbuf);
        } else {
            *sg = SEG_PUSH(j, ADDR_OUT, h, (const char *)op->in + (size_t)j * N + h, N - h);
        }
        return 1;
    }
    default:
        return 0;
    }
}

/* A star bcast: the non-roots wait for the root's go alone (see "Star
 * bcast"; scatter's non-roots waiting so measured no faster, gather's not
 * measured: both keep the full meet). */
static int star_go(const direct_op_t *op)
{
    return op->star && op->a.coll == PLX_COLL_BCAST;
}

/* ---- start ----------------------------------------------------------------- */
static void op_init(plx_comm_t comm, struct node_direct *nd, const coll_args_t *a, direct_op_t *op)
{
    memset(op, 0, sizeof *op);
    op->comm = comm;
    op->nd = nd;
    op->a = *a;
    op->es = plx_dtype_size(a->dt);
    op->bytes = a->count * op->es;
    op->phase = DIRECT_TURN;
    op->status = PLX_SUCCESS;
    op->stage_wait = -1;
}

plx_status_t plx_direct_start(plx_comm_t comm, const coll_args_t *a, direct_op_t *op)
{
    if (coll_is_v(a->coll)) {   /* node_direct_v.c */
        plx_status_t st = plx_direct_v_start(comm, a, op);
        if (st != PLX_SUCCESS) {
            op->status = st;
            op->phase = DIRECT_DONE;
        }
        return st;
    }
    op_init(comm, comm->direct, a, op);
    op->seq = comm->direct->next_seq++;
    op->prev = op->seq - 1;
    /* (not the node-local phases of hier.c: their closed numbers need the drain) */
    op->star = (a->coll == PLX_COLL_SCATTER || a->coll == PLX_COLL_GATHER) && op->nd->oversub &&
               op->nd->n > 2;
    if (star_bcast(op)) op->star = 1;
    PROBE_START((int)a->coll, op->bytes, op->nd->n, op->nd->me);
    return PLX_SUCCESS;
}

/* Scratch bytes this rank needs for this collective. */
static size_t scratch_need(const direct_op_t *op)
{
    const coll_args_t *a = &op->a;
    int me = op->nd->me;
    switch (a->coll) {
    case PLX_COLL_REDUCE_SCATTER: return coll_in_place(a->sbuf) && me != 0 ? op->bytes : 0;
    case PLX_COLL_ALLTOALL:       return coll_in_place(a->sbuf) ? op->bytes * (size_t)op->nd->n : 0;
    default:                      return 0;
    }
}

static int is_reduction(plx_coll_t c)
{
    return c == PLX_COLL_ALLREDUCE || c == PLX_COLL_REDUCE || c == PLX_COLL_REDUCE_SCATTER;
}
static int is_rooted(plx_coll_t c)
{
    return c == PLX_COLL_BCAST || c == PLX_COLL_REDUCE || c == PLX_COLL_GATHER || c == PLX_COLL_SCATTER;
}

/* Does this rank read its peer's block as a shared read (see "Shared
 * read")?  The same conditions as one call per copy segment (work), for a
 * segment above DIRECT_WHOLE_MAX; the piece does not depend on the
 * datatype, which the members of an allgather need not agree on. */
static int shared_read(const direct_op_t *op)
{
    const struct node_direct *nd = op->nd;
    return nd->n == 2 && nd->spin && !op->comm->ctx->pt.running && !nd->piece_set &&
           (op->a.coll == PLX_COLL_ALLGATHER || op->a.coll == PLX_COLL_ALLTOALL) &&
           op->bytes > DIRECT_WHOLE_MAX && op->bytes / DIRECT_SHARE_PIECE < DIRECT_CLAIM_NONE / 2;
}

/* Claim the next piece of member m's shared read of s: its offset in the
 * block, or (size_t)-1 when none is left (or m reads alone). */
static size_t claim(const direct_op_t *op, int m)
{
    uint64_t k = __atomic_fetch_add(claim_of(op->nd->win[m]), 1, __ATOMIC_RELAXED) - (op->seq << 24);
    if (k >= DIRECT_CLAIM_NONE || k * DIRECT_SHARE_PIECE >= op->bytes) return (size_t)-1;
    return (size_t)k * DIRECT_SHARE_PIECE;
}

/* Reductions share the work by claims instead of fixed slices: a rank
 * that runs slower (its core busier, its data further away) than the
 * others would make them wait in the drain for up to a few hundred us at
 * 4 MiB (2 ranks, per-phase probe, perf/RESULTS.md "Issue 11, 2 ranks:
 * claimed pieces").  Member 0 takes pieces from the front, the others from
 * the back of the element range, by compare-and-swap on one word of
 * member 0's window: (first unclaimed << 32) | end of unclaimed.  Each
 * element is still reduced by exactly one rank, in member order, and
 * copied from there: results stay bitwise the same on every rank.  Only
 * the rank count, the collective and the count decide it, so all agree.
 * 2 ranks: allreduce and reduce from 2 MiB.  3+ ranks: both at every
 * size: where ranks outnumber cores a rank's thread may wait a millisecond
 * for a core, and with fixed slices everyone waited for its slice; with
 * claims the running ranks take it (4 ranks on 2 cores, progress-thread
 * overlap of allreduce at 1-64 MiB: the slowest of 8 launches -0.49-0.91
 * -> 0.80-0.95; blocking allreduce and reduce at 3-5 ranks, 256 KiB-16 MiB,
 * 0.78-1.05x the time by q1 and median; perf/RESULTS.md "Issue 11:
 * claimed pieces at 3+ ranks", lead of session 17).  The
 * drain still waits for every member's done, stored after its last claim
 * failed, so member 0 never resets the word under a late claimer. */
#define DIRECT_CLAIM_FROM (2u << 20)
static int claimed(const direct_op_t *op)
{
    plx_coll_t c = op->a.coll;
    if (op->a.count >= ((uint64_t)1 << 32)) return 0;
    if (op->nd->n == 2) return (c == PLX_COLL_ALLREDUCE || c == PLX_COLL_REDUCE) && op->bytes >= DIRECT_CLAIM_FROM;
    return op->nd->n > 2 && (c == PLX_COLL_ALLREDUCE || c == PLX_COLL_REDUCE);
}

/* Claims shrink with what is left (1/n of it, at most a piece), so the
 * ranks end close together, but stay whole pages (CMA pins pages). */
#define DIRECT_CLAIM_MIN (64u << 10)
static int rclaim(direct_op_t *op, size_t piece, size_t *beg, size_t *len)
{
    struct node_direct *nd = op->nd;
    uint64_t *w = rclaim_of(nd->win[0]);
    uint64_t v = __atomic_load_n(w, __ATOMIC_ACQUIRE);
    size_t unit = op->es >= 4096 ? 1 : 4096 / op->es, minc = DIRECT_CLAIM_MIN / op->es;
    size_t cap = piece / op->es;
    if (cap < minc) cap = minc;
    for (;;) {
        uint64_t lo = v >> 32, hi = v & 0xffffffffu;
        if (lo >= hi) return 0;
        uint64_t rem = hi - lo, take = rem / (uint64_t)nd->n;
        if (take > cap) take = cap;
        if (take < minc) take = minc;
        take -= take % unit;
        if (take == 0 || take > rem) take = rem;
        uint64_t nv = nd->me == 0 ? ((lo + take) << 32 | hi) : (lo << 32 | (hi - take));
        if (__atomic_compare_exchange_n(w, &v, nv, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
            *beg = (size_t)(nd->me == 0 ? lo : hi - take) * op->es;
            *len = (size_t)take * op->es;
            return 1;
        }
    }
}

/* Ending a claimed reduction (3+ ranks).  Each claimer adds the elements
 * of every piece it reduced and wrote out to one word of member 0's
 * window, (seq << 32) | finished, and wakes whoever sleeps on that
 * window.  Once the word holds the count, no member reads an input or
 * writes an output of s any more, so the drain ends there instead of
 * waiting for every member's done: a rank whose thread waited for a core
 * and took no claim no longer holds the others at the end (4 ranks on 2
 * cores, progress-thread overlap; perf/RESULTS.md "Issue 11: ending a
 * claimed reduction on its finished count", lead of session 17).  That
 * rank may not even have met s yet, so the headers and claim words of s
 * must stay as they are: the next turn first waits for every member's
 * done of s (fin_open), which each member stores in its own drain, after
 * its last claim.  Only with a successful meet: a mismatch skips the
 * work, and that drain waits as every other does. */
static int fin_drain(const direct_op_t *op)
{
    return op->nd->n > 2 && claimed(op) && op->status == PLX_SUCCESS;
}

static uint64_t fin_tag(uint64_t seq) { return (seq & 0xffffffffu) << 32; }

/* s's word holds its count, or member 0 has already set it up for a later
 * collective (which it does only after every member's done of s) */
static int fin_reached(const direct_op_t *op)
{
    uint64_t v = __atomic_load_n(rfin_of(op->nd->win[0]), __ATOMIC_ACQUIRE);
    uint32_t tag = (uint32_t)(v >> 32), cur = (uint32_t)op->seq;
    if (tag == cur) return (v & 0xffffffffu) == op->a.count;
    return (int32_t)(tag - cur) > 0;
}

/* Note one buffer of this collective for huge pages (direct_thp.c), when
 * it is large enough to pay the collapse back. */
static int thp_buffer(direct_op_t *op, const void *p, size_t len)
{
    return p && len >= DIRECT_THP_FROM &&
           plx_thp_note(&op->nd->thp, p, len, op->comm->ctx->cfg.direct_thp);
}

/* The buffers that peers copy from or into with CMA (in: this rank's input
 * as turn() publishes it), each with its exact length: plx_thp_note may
 * collapse every 2 MiB page inside [p, p + len), so a length past the
 * user's buffer would add memory the application never touched.  Gather
 * and scatter (stars at 3+ ranks, their root's blocks) are left as they
 * were: not measured. */
static void thp_buffers(direct_op_t *op, const void *in)
{
    const coll_args_t *a = &op->a;
    size_t N = op->bytes, nN = N * (size_t)op->nd->n;
    const void *out = coll_in_place(a->rbuf) ? NULL : a->rbuf;
    op->in_huge = 0;
    switch (a->coll) {
    case PLX_COLL_ALLREDUCE:
        thp_buffer(op, in, N);
        if (out != in) thp_buffer(op, out, N);
        break;
    case PLX_COLL_REDUCE:
        thp_buffer(op, in, N);
        if (op->nd->me == a->root && out != in) thp_buffer(op, out, N);
        break;
    case PLX_COLL_REDUCE_SCATTER:       /* n blocks in, one out (in place: the n blocks) */
        op->in_huge = thp_buffer(op, in, nN);
        if (!coll_in_place(a->sbuf)) thp_buffer(op, out, N);
        break;
    case PLX_COLL_BCAST:
        thp_buffer(op, out, N);
        break;
    case PLX_COLL_ALLGATHER:            /* one block in, n out (in place: in is in out) */
        op->in_huge = !coll_in_place(a->sbuf) ? thp_buffer(op, a->sbuf, N) : 0;
        if (thp_buffer(op, out, nN) && coll_in_place(a->sbuf)) op->in_huge = 1;
        break;
    case PLX_COLL_ALLTOALL:             /* n blocks each way (in place: in is scratch) */
        op->in_huge = thp_buffer(op, in, nN);
        thp_buffer(op, out, nN);
        break;
    default:
        break;
    }
}

/* ---- staged input (see "Staged input") ------------------------------------- */
/* The bytes of this rank's input its peers read: allgather its block,
 * alltoall the blocks of the others; 0 for the other collectives. */
static size_t stage_len(const direct_op_t *op)
{
    if (op->a.coll == PLX_COLL_ALLGATHER) return op->bytes;
    if (op->a.coll == PLX_COLL_ALLTOALL) return op->bytes * (size_t)(op->nd->n - 1);
    /* 2-rank reduce_scatter from PLX_DIRECT_STAGE_RS: block p of my input,
     * which the peer p reduces (see "Staged input") */
    if (op->a.coll == PLX_COLL_REDUCE_SCATTER && op->nd->n == 2 &&
        op->bytes >= op->nd->stage_rs)
        return op->bytes;
    return 0;
}

/* Where the part of my input that stage_len counts starts in it. */
static size_t stage_src(const direct_op_t *op)
{
    return op->a.coll == PLX_COLL_REDUCE_SCATTER ? (size_t)(1 - op->nd->me) * op->bytes : 0;
}

/* Where this rank's part of member m's input starts in m's staging area. */
static size_t stage_pos(const direct_op_t *op, int m)
{
    int n = op->nd->n;
    if (op->a.coll != PLX_COLL_ALLTOALL) return 0;
    return (size_t)((m - 1 - op->nd->me + n) % n) * op->bytes;
}

/* Is op's input, on huge pages (op->in_huge), read by its peers with CMA
 * instead of staged?  An input on huge pages costs a peer's CMA read
 * little pinning, and that one read beats the owner's copy plus the
 * reader's; with more ranks than cores it also needs no owner to be
 * scheduled, where a staged read waits for the owner's copy.  Only where
 * measured faster (plx_perf, interleaved A/Bs against staging, time per
 * call by q1 and median over 8-10 launches per arm):
 * - 2-rank allgather and alltoall, 512 KiB-4 MiB: 0.60-0.91x the staged
 *   time (perf/RESULTS.md, issue 11, session s13c);
 * - allgather at 3 and 4 ranks (2 and 4 MiB: the sizes whose block is
 *   512 KiB or more, so collapsed): 0.71-0.94x in four A/Bs (two medians
 *   1.01 and 1.05); alltoall at 3-5 ranks (1 MiB, and 512 KiB at 4 ranks
 *   where the input happens to be collapsed whole): 1 MiB 0.67-0.86x,
 *   512 KiB 0.81-1.03x;
 * - 2-rank reduce_scatter 1-4 MiB (512 KiB-2 MiB blocks): 0.71-0.90x
 *   (perf/RESULTS.md, issue 11, session s14a).
 * Allgather at 5 ranks (4 MiB) was not faster (1.00-1.05x by q1 in three
 * A/Bs): it stages, as do 6+ ranks (not measured). */
static int huge_read(const direct_op_t *op)
{
    int n = op->nd->n;
    switch (op->a.coll) {
    case PLX_COLL_ALLGATHER: return n <= 4;
    case PLX_COLL_ALLTOALL: return n <= 5;
    case PLX_COLL_REDUCE_SCATTER: return n == 2;   /* (only 2 ranks stage it) */
    default: return 0;
    }
}

/* Take this rank's staging area for op if its peers' part fits (in turn,
 * before the header: the flag goes out with it). */
static void stage_take(direct_op_t *op)
{
    struct node_direct *nd = op->nd;
    plx_context_t ctx = op->comm->ctx;
    size_t len = stage_len(op);
    op->stage = 0;
    op->stage_wait = -1;
    op->pend = 0;
    op->st_done = 0;
    /* alltoall copies its own block besides (allgather fuses that copy
     * into the staging): it stages up to half the area */
    size_t cap = op->a.coll == PLX_COLL_ALLTOALL ? nd->stg_cap / 2 : nd->stg_cap;
    /* with a progress thread only what turn stages whole (one piece):
     * staged in steps, a peer's read waits until this rank's thread gets a
     * core again, where a CMA read needs nobody (PLX_PROGRESS=thread
     * plx_perf --overlap, allgather 1 MiB: overlap 0.26-0.41 staged in
     * steps against 0.72-0.92 with CMA) */
    if (ctx->pt.running && len > DIRECT_STAGE_PIECE) return;
    if (nd->n < 2 || len == 0 || len > cap || ctx->direct_stage_busy) return;
    if (op->in_huge && huge_read(op)) return;   /* (a CMA read, see huge_read) */
    ctx->direct_stage_busy = 1;
    op->stage = 1;
    op->st_len = len;
}

/* Nobody reads this rank's staging area for op any more. */
static void stage_give(direct_op_t *op)
{
    if (!op->stage) return;
    op->stage = 0;
    op->comm->ctx->direct_stage_busy = 0;
}

/* Copy the next piece of this rank's input into its staging area and say
 * so (allgather out of place: also into its own recvbuf slot, the one read
 * of the send block serving both). */
static void stage_piece(direct_op_t *op)
{
    struct node_direct *nd = op->nd;
    size_t N = op->bytes, x = op->st_done, blk = x / N, bo = x % N, l = N - bo;
    int n = nd->n, me = nd->me;
    if (l > DIRECT_STAGE_PIECE) l = DIRECT_STAGE_PIECE;
    size_t from = op->a.coll == PLX_COLL_ALLTOALL ? (size_t)((me - 1 - (int)blk + n) % n) * N + bo : bo;
    if (is_reduction(op->a.coll)) {   /* one part, stage_len long */
        l = op->st_len - x < DIRECT_STAGE_PIECE ? op->st_len - x : DIRECT_STAGE_PIECE;
        from = stage_src(op) + x;
    }
    const char *src = (const char *)op->in + from;
    /* the peers' reads of the last call left the area's lines in their
     * caches: while the host runs the two vCPUs on different dies the
     * plain copy takes each back first, 3-4x slower; streaming always
     * makes every peer read from memory, so only while plain copies run
     * slow (PLX_DIRECT_STREAM=auto).  Not at 5+ ranks, where fast launches
     * measured 1.11-1.17x slower by q1 (perf/RESULTS.md, issue 11, s19b) */
    if (op->a.coll == PLX_COLL_ALLGATHER && n >= 3 && n <= 4 && l >= DIRECT_STREAM_MIN)
        plx_copy_timed(&nd->stream, nd->stg[me] + x, src, l);
    else
        memcpy(nd->stg[me] + x, src, l);
    if (op->a.coll == PLX_COLL_ALLGATHER && !coll_in_place(op->a.sbuf))
        memcpy((char *)op->a.rbuf + (size_t)me * N + bo, src, l);
    op->st_done = x + l;
    __atomic_store_n(staged_of(nd->win[me]), (uint64_t)op->st_done, __ATOMIC_RELEASE);
}

/* Bytes of member m's staged input available at pos (acquire). */
static size_t staged_at(const direct_op_t *op, int m, size_t pos)
{
    uint64_t c = __atomic_load_n(staged_of(op->nd->win[m]), __ATOMIC_ACQUIRE);
    return c > pos ? (size_t)(c - pos) : 0;
}

/* Step 1: publish this rank's buffers for collective s. */
static int turn(direct_op_t *op)
{
    struct node_direct *nd = op->nd;
    const coll_args_t *a = &op->a;
    if (nd->local_done != op->prev) closes_run(nd);
    if (nd->local_done != op->prev) return 0;   /* one at a time, in order */
    if (nd->fin_open) {
        /* the last one ended on its finished count: every member's done
         * of it before this header replaces its (see "Ending a claimed
         * reduction"); op->next: the member waited for */
        for (int m = 0; m < nd->n; m++)
            if (m != nd->me && __atomic_load_n(done_of(nd->win[m]), __ATOMIC_ACQUIRE) < nd->fin_open) {
                op->next = m;
                return 0;
            }
        nd->fin_open = 0;
        op->next = 0;
    }
    size_t need = scratch_need(op);
    if (need > nd->scratch_cap) {
        void *p = aligned_alloc(64, (need + 63) & ~(size_t)63);
        if (!p) {
            op->status = PLX_ERR_NO_MEMORY;
            return -1;
        }
        free(nd->scratch);
        nd->scratch = p;
        nd->scratch_cap = need;
    }
    op->aux = need ? nd->scratch : NULL;
    /* my input, as my peers and I read it */
    const void *in = coll_in_place(a->sbuf) ? a->rbuf : a->sbuf;
    if (a->coll == PLX_COLL_BCAST) in = a->rbuf;
    if (a->coll == PLX_COLL_ALLGATHER && coll_in_place(a->sbuf))
        in = COLL_CAT(a->rbuf, (size_t)nd->me * a->count, op->es);
    if (a->coll == PLX_COLL_ALLTOALL && coll_in_place(a->sbuf)) {
        memcpy(op->aux, a->rbuf, op->bytes * (size_t)nd->n);
        in = op->aux;
    }
    if (a->coll == PLX_COLL_SCATTER && nd->me != a->root) in = NULL;
    op->in = in;
    /* (before the header: nobody copies from or into these buffers yet) */
    op->in_huge = 0;
    if (op->comm->ctx->cfg.direct_thp > 0) thp_buffers(op, in);
    unsigned char *w = nd->win[nd->me];
    direct_hdr_t *h = hdr_of(w);
    /* (done of s-1 before any field of this header: a star collective's
     * member may still copy the header of s-1, see meet.  Only after a
     * collective that skipped the drain's wait: one that waited saw every
     * member's done >= s-1 (acquire), stored after its last read of this
     * header, so nobody reads it any more) */
    if (nd->hdr_open) __atomic_thread_fence(__ATOMIC_RELEASE);
    /* nobody claims from it now: the peer finished s-1 (drain) and starts s
     * only after the header below */
    if (nd->n == 2 && (a->coll == PLX_COLL_ALLGATHER || a->coll == PLX_COLL_ALLTOALL))
        __atomic_store_n(claim_of(w), (op->seq << 24) + (shared_read(op) ? 0 : DIRECT_CLAIM_NONE),
                         __ATOMIC_RELAXED);
    /* (nobody reads the counter of s-1 any more: the drain) */
    stage_take(op);
    if (op->stage) __atomic_store_n(staged_of(w), 0, __ATOMIC_RELAXED);
    /* (a progress thread: all of it before the header, see stage_take) */
    while (op->stage && op->comm->ctx->pt.running && op->st_done < op->st_len) stage_piece(op);
    h->staged = op->stage;
    h->addr[ADDR_IN] = (uint64_t)(uintptr_t)in;
    h->addr[ADDR_OUT] = coll_in_place(a->rbuf) ? 0 : (uint64_t)(uintptr_t)a->rbuf;
    h->addr[ADDR_AUX] = (uint64_t)(uintptr_t)op->aux;
    h->bytes = op->bytes;
    h->coll = (int32_t)a->coll;
    h->dt = (int32_t)a->dt;
    h->op = (int32_t)a->op;
    h->root = (int32_t)a->root;
    /* (member 1 claims only after it met this header) */
    if (nd->me == 0 && claimed(op)) {
        __atomic_store_n(rclaim_of(w), (uint64_t)a->count, __ATOMIC_RELAXED);
        if (nd->n > 2) __atomic_store_n(rfin_of(w), fin_tag(op->seq), __ATOMIC_RELAXED);
    }
    __atomic_store_n(&h->seq, op->seq, __ATOMIC_RELEASE);
    announce(nd);
    return 1;
}

/* Do my signature and member m's agree?  If not, say how (once). */
static int signature_ok(direct_op_t *op, int m, const direct_hdr_t *h)
{
    const coll_args_t *a = &op->a;
    plx_coll_t c = (plx_coll_t)h->coll;
    int same = c == a->coll && h->bytes == op->bytes;
    if (same && is_reduction(c)) same = h->dt == (int32_t)a->dt && h->op == (int32_t)a->op;
    if (same && is_rooted(c)) same = h->root == a->root;
    if (same) return 1;
    plx_comm_t cm = op->comm;
    const char *oname = plx_coll_name(c) ? plx_coll_name(c) : "?";
    char mine[96] = "", theirs[96] = "";
    if (is_reduction(a->coll))
        snprintf(mine, sizeof mine, " (%s, %s)", plx_dtype_name(a->dt), plx_op_name(a->op));
    else if (is_rooted(a->coll))
        snprintf(mine, sizeof mine, " (root %d)", a->root);
    if (is_reduction(c) && (unsigned)h->dt < PLX_DTYPE_COUNT && (unsigned)h->op < PLX_OP_COUNT)
        snprintf(theirs, sizeof theirs, " (%s, %s)", plx_dtype_name((plx_dtype_t)h->dt),
                 plx_op_name((plx_op_t)h->op));
    else if (is_rooted(c))
        snprintf(theirs, sizeof theirs, " (root %d)", h->root);
    plx_error("plx_%s on comm %u, node-local sequence %llu (direct): mismatch: rank %d called %s "
              "of %zu bytes%s, rank %d %s of %llu bytes%s", plx_coll_name(a->coll), cm->id,
              (unsigned long long)op->seq, cm->rank, plx_coll_name(a->coll), op->bytes, mine, m,
              oname, (unsigned long long)h->bytes, theirs);
    return 0;
}

/* Member m's header says that nobody works on s (a ghost, or m is past s
 * without taking part: see "Closed numbers"): 1, with op->status set
 * (logged) unless it already failed. */
static int closed_by(direct_op_t *op, int m)
{
    struct node_direct *nd = op->nd;
    direct_hdr_t *h = hdr_of(nd->win[m]);
    uint64_t hs = __atomic_load_n(&h->seq, __ATOMIC_ACQUIRE);
    plx_status_t st;
    if (hs < op->seq || (hs == op->seq && h->coll != DIRECT_GHOST)) return 0;
    /* a star collective's member that left s since star_finished looked
     * (done = s is stored before the next header): the next pass takes it */
    if (op->star && m != op->a.root && __atomic_load_n(done_of(nd->win[m]), __ATOMIC_ACQUIRE) >= op->seq)
        return 0;
    /* a ghost above s: m ended its numbers up to it early, most likely for
     * the same reason; a real header above s: m built no phase s */
    st = h->coll == DIRECT_GHOST ? (plx_status_t)h->root : PLX_ERR_MISMATCH;
    if (op->status != PLX_SUCCESS) return 1;
    if (hs > op->seq && st == PLX_ERR_MISMATCH)
        plx_error("plx_%s on comm %u (rank %d of %d), node-local sequence %llu (direct): rank %d "
                  "(world %d) took no part in it (it is at %llu): the ranks disagree on the call",
                  plx_coll_name(op->a.coll), op->comm->id, op->comm->rank, op->comm->size,
                  (unsigned long long)op->seq, m, nd->world[m], (unsigned long long)hs);
    else
        plx_error("plx_%s on comm %u (rank %d of %d), node-local sequence %llu (direct): rank %d "
                  "(world %d) gave up on it before it began (%s)", plx_coll_name(op->a.coll),
                  op->comm->id, op->comm->rank, op->comm->size, (unsigned long long)op->seq, m,
                  nd->world[m], plx_strerror(st));
    op->status = st == PLX_SUCCESS ? PLX_ERR_INTERNAL : st;
    return 1;
}

/* Star collectives: has non-root m met s and finished it (its done at s
 * or above; its header may be the next one's already)?  Then its mismatch
 * mark stands for its signature (see "Star collectives"). */
static int star_finished(direct_op_t *op, int m)
{
    unsigned char *w = op->nd->win[m];
    /* (the root stores done = s before its drain and keeps its header) */
    if (m == op->nd->me || m == op->a.root || __atomic_load_n(done_of(w), __ATOMIC_ACQUIRE) < op->seq)
        return 0;
    if (__atomic_load_n(mm_of(w), __ATOMIC_ACQUIRE) == op->seq && op->status == PLX_SUCCESS) {
        plx_error("plx_%s on comm %u (rank %d of %d), node-local sequence %llu (direct): mismatch: "
                  "rank %d (world %d) found the ranks' calls to differ", plx_coll_name(op->a.coll),
                  op->comm->id, op->comm->rank, op->comm->size, (unsigned long long)op->seq, m,
                  op->nd->world[m]);
        op->status = PLX_ERR_MISMATCH;
    }
    return 1;
}

/* Has member m given up on s (its fail word)?  Then op ends with its
 * status and a message naming it. */
static int gave_up(direct_op_t *op, int m)
{
    struct node_direct *nd = op->nd;
    unsigned char *w = nd->win[m];
    if (__atomic_load_n(fail_of(w), __ATOMIC_ACQUIRE) < op->seq) return 0;
    op->status = (plx_status_t)__atomic_load_n(fail_status_of(w), __ATOMIC_RELAXED);
    plx_error("plx_%s on comm %u (rank %d of %d), node-local sequence %llu (direct): rank %d "
              "(world %d) gave up on it (%s)", plx_coll_name(op->a.coll), op->comm->id, op->comm->rank,
              op->comm->size, (unsigned long long)op->seq, m, nd->world[m], plx_strerror(op->status));
    return 1;
}

/* Step 2 of a star bcast's non-root: the root's header (its signature
 * checked here), then its go of s (it met every member; with its mismatch
 * mark if it found a difference).  op->next: 1 once the header is checked.
 * Returns as meet. */
static int meet_root(direct_op_t *op)
{
    struct node_direct *nd = op->nd;
    int root = op->a.root;
    unsigned char *w = nd->win[root];
    if (!op->next) {
        direct_hdr_t *h = hdr_of(w);
        if (closed_by(op, root)) return 2;
        if (__atomic_load_n(&h->seq, __ATOMIC_ACQUIRE) != op->seq) return 0;
        if (gave_up(op, root)) return -1;
        /* (the root keeps this header until its drain saw this rank's done) */
        direct_hdr_t hc = *h;
        for (int k = 0; k < 3; k++) nd->addr[root][k] = hc.addr[k];
        nd->staged[root] = 0;   /* (bcast: nothing staged) */
        op->next = 1;
        if (!signature_ok(op, root, &hc)) op->status = PLX_ERR_MISMATCH;
    }
    /* a difference with the root's call: the root sees it too (this
     * header, or the mark below once this rank left) */
    if (op->status == PLX_SUCCESS) {
        if (__atomic_load_n(go_of(w), __ATOMIC_ACQUIRE) != op->seq) return gave_up(op, root) ? -1 : 0;
        if (__atomic_load_n(mm_of(w), __ATOMIC_ACQUIRE) == op->seq) {
            plx_error("plx_%s on comm %u (rank %d of %d), node-local sequence %llu (direct): mismatch: "
                      "rank %d (world %d) found the ranks' calls to differ", plx_coll_name(op->a.coll),
                      op->comm->id, op->comm->rank, op->comm->size, (unsigned long long)op->seq, root,
                      nd->world[root]);
            op->status = PLX_ERR_MISMATCH;
        }
    }
    op->next = 0;
    if (op->status != PLX_SUCCESS) __atomic_store_n(mm_of(nd->win[nd->me]), op->seq, __ATOMIC_RELEASE);
    return 1;
}

/* Step 2: every member's header of s.  1 when all are there, 0 if not
 * yet, -1 if a member already gave up on s, 2 if a member closed s (then
 * nobody works on it, and this rank need not wait for the others). */
static int meet(direct_op_t *op)
{
    struct node_direct *nd = op->nd;
    if (star_go(op) && nd->me != op->a.root) return meet_root(op);
    for (; op->next < nd->n; op->next++) {
        int m = op->next;
        direct_hdr_t *h = hdr_of(nd->win[m]);
        if (op->star && star_finished(op, m)) continue;
        if (closed_by(op, m)) {
            op->next = 0;
            return 2;
        }
        if (__atomic_load_n(&h->seq, __ATOMIC_ACQUIRE) != op->seq) {
            /* a later member may have closed s already */
            for (int k = m + 1; k < nd->n; k++)
                if (k != nd->me && !(op->star && star_finished(op, k)) && closed_by(op, k)) {
                    op->next = 0;
                    return 2;
                }
            return 0;
        }
        /* it already gave up on this one (we came too late): its buffers are not ours */
        if (gave_up(op, m)) return -1;
        direct_hdr_t hc = *h;
        if (op->star && m != nd->me) {
            /* it may be leaving s and writing its next header right now:
             * done = s goes first (turn's fence), so this copy is whole
             * unless done says so; then its mismatch mark stands for it */
            __atomic_thread_fence(__ATOMIC_ACQUIRE);
            if (star_finished(op, m)) continue;
        }
        for (int k = 0; k < 3; k++) nd->addr[m][k] = hc.addr[k];
        nd->staged[m] = hc.staged != 0 && nd->stg[m] != NULL;
        if (op->status == PLX_SUCCESS && !signature_ok(op, m, &hc)) op->status = PLX_ERR_MISMATCH;
    }
    op->next = 0;
    /* (before done = s: a member that meets s after this rank left may
     * only see this mark) */
    if (op->star && op->status != PLX_SUCCESS)
        __atomic_store_n(mm_of(nd->win[nd->me]), op->seq, __ATOMIC_RELEASE);
    /* a star bcast's root: the non-roots wait for this alone */
    if (star_go(op)) {
        __atomic_store_n(go_of(nd->win[nd->me]), op->seq, __ATOMIC_RELEASE);
        announce(nd);
    }
    return 1;
}

/* Bytes at address addr of member m into dst. */
static plx_status_t pull(direct_op_t *op, int m, void *dst, uint64_t addr, size_t len)
{
    struct node_direct *nd = op->nd;
    if (m == nd->me) {
        memcpy(dst, (const void *)(uintptr_t)addr, len);
        return PLX_SUCCESS;
    }
    plx_status_t st = nd->ops[m]->peer_read(nd->tl[m], nd->world[m], dst, addr, len);
    if (st != PLX_SUCCESS)
        plx_error("plx_%s on comm %u (rank %d of %d), node-local sequence %llu (direct): reading "
                  "%zu bytes of rank %d (world %d) failed: %s", plx_coll_name(op->a.coll), op->comm->id,
                  op->comm->rank, op->comm->size, (unsigned long long)op->seq, len, m, nd->world[m],
                  plx_strerror(st));
    return st;
}

/* len bytes at src to address addr of member m. */
static plx_status_t push(direct_op_t *op, int m, uint64_t addr, const void *src, size_t len)
{
    struct node_direct *nd = op->nd;
    if (m == nd->me) {
        memcpy((void *)(uintptr_t)addr, src, len);
        return PLX_SUCCESS;
    }
    plx_status_t st = nd->ops[m]->peer_write(nd->tl[m], nd->world[m], addr, src, len);
    if (st != PLX_SUCCESS)
        plx_error("plx_%s on comm %u (rank %d of %d), node-local sequence %llu (direct): writing "
                  "%zu bytes to rank %d (world %d) failed: %s", plx_coll_name(op->a.coll), op->comm->id,
                  op->comm->rank, op->comm->size, (unsigned long long)op->seq, len, m, nd->world[m],
                  plx_strerror(st));
    return st;
}

/* Member m's operand at byte at of a 2-rank reduction, in its staging
 * area (it staged the range sg reduces, from sg's start: see stage_src),
 * or NULL: read it from m's buffer.  The work checked that it is there.
 * (Only reduce_scatter stages: see "Staged input".) */
static const char *staged_operand(const direct_op_t *op, const direct_seg_t *sg, int m, size_t at)
{
    const struct node_direct *nd = op->nd;
    if (nd->n != 2 || m == nd->me || !nd->staged[m]) return NULL;
    return (const char *)nd->stg[m] + (at - sg->roff);
}

/* A 2-rank allreduce of DIRECT_BIG_FROM bytes or more (see there). */
static int big_allreduce(const direct_op_t *op)
{
    return op->nd->n == 2 && op->a.coll == PLX_COLL_ALLREDUCE && op->bytes >= DIRECT_BIG_FROM;
}

/* Reduce bytes [o, o+l) of segment sg over every member, in member order. */
static plx_status_t reduce_piece(direct_op_t *op, const direct_seg_t *sg, size_t o, size_t l)
{
    struct node_direct *nd = op->nd;
    const coll_args_t *a = &op->a;
    plx_op_t rop = coll_reduce_op(a->op);
    size_t cnt = l / op->es, at = sg->roff + o;
    int remote = sg->peer >= 0 && sg->peer != nd->me;
    char *d = remote ? (char *)nd->acc : sg->dst + o;
    const char *own = (const char *)op->in + at;
    int alias = d == own, me = nd->me, n = nd->n;
    /* accumulate in place unless the destination is my own input and
     * member 0's operand would overwrite it before I add mine; member 1
     * in place may: its input is the second operand of the first step,
     * consumed there (member 0's operand goes to tmp; no copy after) */
    char *acc = alias && me > 1 ? (char *)nd->acc : d;
    const void *first = own;
    int big = big_allreduce(op) && !remote && !alias;   /* operands via tmp (DIRECT_BIG_FROM) */
    /* member 0 reads member 1's operand straight into the destination and
     * adds in place (own op it, in member order): the kernel then streams
     * two buffers, not three, and no bounce buffer is written (per-phase
     * probe of 4 MiB allreduce at 2 ranks: perf/RESULTS.md "Issue 11, 2
     * ranks: claimed pieces").  Not for small pieces, whose bounce buffer
     * stays in L1/L2 (64 KiB allreduce, 32 KiB pieces: 1.1x slower with it),
     * nor for a big 2-rank allreduce, whose operands both go via tmp. */
    int into_dst = me == 0 && n > 1 && acc != own && l >= DIRECT_INTO_DST_MIN && !big;
    if (me != 0) {
        char *f = (me == 1 && alias) || big ? (char *)nd->tmp : acc;
        if ((first = staged_operand(op, sg, 0, at)) == NULL) {
            double t_ = PROBE_T();
            PLX_CHECK(pull(op, 0, f, nd->addr[0][ADDR_IN] + at, l));
            PROBE_ADD(rd, t_);
            first = f;
        }
    }
    for (int m = 1; m < n; m++) {
        const void *x = own;
        if (m != me && (x = staged_operand(op, sg, m, at)) == NULL) {
            char *into = m == 1 && into_dst ? acc : (char *)nd->tmp;
            double t_ = PROBE_T();
            PLX_CHECK(pull(op, m, into, nd->addr[m][ADDR_IN] + at, l));
            PROBE_ADD(rd, t_);
            x = into;
        }
        double ta_ = PROBE_T();
        if (m == n - 1 && a->op == PLX_AVG) {
            /* the last step of an average: each chunk divided while still in
             * L1, not in a second pass over the piece (same arithmetic; at
             * 3+ ranks acc is divided before any copy to d, same bits) */
            size_t ch = DIRECT_AVG_CHUNK / op->es;
            for (size_t i = 0; i < cnt; i += ch) {
                size_t k = cnt - i < ch ? cnt - i : ch, off = i * op->es;
                if (m == 1)
                    plx_reduce_local3(acc + off, (const char *)first + off, (const char *)x + off, k, a->dt,
                                      rop);
                else
                    plx_reduce_local(acc + off, (const char *)x + off, k, a->dt, rop);
                plx_avg_finish(acc + off, k, a->dt, n);
            }
        } else if (m == 1) {
            plx_reduce_local3(acc, first, x, cnt, a->dt, rop);
        } else {
            plx_reduce_local(acc, x, cnt, a->dt, rop);
        }
        PROBE_ADD(ar, ta_);
    }
    if (n == 1 && !alias) memcpy(d, own, l);
    if (acc != d) memcpy(d, acc, l);
    if (a->op == PLX_AVG && n == 1) plx_avg_finish(d, cnt, a->dt, n);
    if (remote) {
        double t_ = PROBE_T();
        plx_status_t st_ = push(op, sg->peer, nd->addr[sg->peer][sg->which] + sg->woff + o, d, l);
        PROBE_ADD(wr, t_);
        return st_;
    }
    for (int k = 1; sg->fanout && k < n; k++) {   /* starting after me: spread the writers */
        int m = (me + k) % n;
        double t_ = PROBE_T();
        PLX_CHECK(push(op, m, nd->addr[m][sg->which] + sg->woff + o, d, l));
        PROBE_ADD(wr, t_);
    }
    return PLX_SUCCESS;
}

/* May op take a lone caller's long steps now (see "Short steps beside
 * compute")?  Where ranks outnumber cores they stay long: each piece costs
 * the waiting members a wake-up there (DIRECT_PIECE_OVERSUB). */
static int long_steps(const direct_op_t *op)
{
    const int *beside = op->comm->ctx->compute_beside;   /* (under the context lock) */
    return op->solo != DIRECT_SOLO_NO &&
           (!op->nd->spin || !beside || __atomic_load_n(beside, __ATOMIC_RELAXED) == 0);
}

/* Step 3 of a claimed reduction: one piece of the current claim, or a new
 * claim; DRAIN once nothing is left to claim. */
static int work_claimed(direct_op_t *op)
{
    struct node_direct *nd = op->nd;
    const coll_args_t *a = &op->a;
    int solo = long_steps(op);
    size_t piece = solo ? nd->piece_solo : nd->piece;
    if (solo && !nd->piece_set && nd->piece_solo == DIRECT_PIECE_SOLO && big_allreduce(op))
        piece = DIRECT_PIECE_BIG;
    if (nd->n > 2) {   /* a piece reads every peer: as work() shrinks it */
        piece /= (size_t)(nd->n - 1);
        if (piece < DIRECT_PIECE_MIN) piece = nd->piece < DIRECT_PIECE_MIN ? nd->piece : DIRECT_PIECE_MIN;
    }
    piece = piece / op->es * op->es;
    if (piece == 0) piece = op->es;
    if (op->off >= op->clen) {
        if (!rclaim(op, piece, &op->cbeg, &op->clen)) {
            op->phase = DIRECT_DRAIN;
            return 1;
        }
        op->off = 0;
    }
    direct_seg_t sg;
    if (a->coll == PLX_COLL_ALLREDUCE)
        sg = SEG_RED(op->cbeg, op->clen, (char *)a->rbuf + op->cbeg, 1);
    else if (nd->me == a->root)
        sg = SEG_RED(op->cbeg, op->clen, (char *)a->rbuf + op->cbeg, 0);
    else
        sg = SEG_RED_TO(a->root, op->cbeg, op->clen, op->cbeg);
    size_t l = op->clen - op->off;
    if (l > piece) l = piece;
    plx_status_t st = reduce_piece(op, &sg, op->off, l);
    if (st != PLX_SUCCESS) {
        op->status = st;
        return -1;
    }
    op->off += l;
    if (nd->n > 2) {   /* reduced and written out (see "Ending a claimed reduction") */
        __atomic_add_fetch(rfin_of(nd->win[0]), (uint64_t)(l / op->es), __ATOMIC_RELEASE);
        announce_at(nd->win[0]);
    }
    return 1;
}

/* Step 3: one piece of work.  1 if a piece moved or the work is over (then
 * phase is DRAIN), -1 on error. */
static int work(direct_op_t *op)
{
    struct node_direct *nd = op->nd;
    direct_seg_t sg;
    if (claimed(op)) return work_claimed(op);
    int sh = shared_read(op);
    /* my next piece for the peers first, then my reads (see "Staged input") */
    int staged = op->stage && op->st_done < op->st_len;
    if (staged) stage_piece(op);
    for (;;) {
        if (!get_seg(op, op->seg, &sg)) {
            /* my part is over: write the pieces of the peer's read that it
             * has not claimed yet, from my input into its recvbuf */
            int p = 1 - nd->me;
            size_t at = sh && nd->addr[p][ADDR_OUT] ? claim(op, p) : (size_t)-1;
            if (at == (size_t)-1) {
                if (op->stage && op->st_done < op->st_len) return 1;   /* staging goes on */
                op->phase = DIRECT_DRAIN;
                return 1;
            }
            size_t len = op->bytes - at < DIRECT_SHARE_PIECE ? op->bytes - at : DIRECT_SHARE_PIECE;
            const char *src = (const char *)op->in + (op->a.coll == PLX_COLL_ALLTOALL ? (size_t)p * op->bytes : 0);
            plx_status_t st = push(op, p, nd->addr[p][ADDR_OUT] + (size_t)nd->me * op->bytes + at, src + at, len);
            if (st != PLX_SUCCESS) {
                op->status = st;
                return -1;
            }
            return 1;
        }
        if (op->off < sg.len) break;
        op->seg++;
        op->off = 0;
    }
    size_t o = op->off, l = sg.len - o;
    /* a reduction piece reads (and may write) it once per peer: shrink it
     * with the rank count so one call stays about two copies of a piece
     * long (the progress thread holds the context lock that long) */
    int solo = long_steps(op);
    size_t piece = solo ? nd->piece_solo : nd->piece;
    if (sg.kind == SEG_REDUCE && nd->n > 2) {
        piece /= (size_t)(nd->n - 1);
        if (piece < DIRECT_PIECE_MIN) piece = nd->piece < DIRECT_PIECE_MIN ? nd->piece : DIRECT_PIECE_MIN;
    }
    piece = piece / op->es * op->es;
    /* A plain copy needs no piece when every member has a core and the
     * caller has this one to itself (solo): one system call for the whole
     * segment, as both ranks copy at once anyway (perf/RESULTS.md "Issue
     * 11, 2 ranks: one read per block": a process_vm_readv costs ~2 us
     * before its first byte; 4-16 of them per call at 1-4 MiB).  Only for
     * a segment that fits the caches: from 8 MiB on the one call measured
     * 0-10 % slower than the pieces.  Unless PLX_DIRECT_PIECE is set. */
    if (sg.kind != SEG_REDUCE && sg.len <= DIRECT_WHOLE_MAX && nd->spin && solo && !nd->piece_set)
        piece = l;
    /* (staged[] is current for these two: a star's meet may skip members) */
    int from_stage = sg.kind == SEG_COPY && sg.peer != nd->me && nd->staged[sg.peer] &&
                     (op->a.coll == PLX_COLL_ALLGATHER || op->a.coll == PLX_COLL_ALLTOALL);
    if (sh && sg.kind == SEG_COPY && sg.peer != nd->me) {
        /* the peer may have written some pieces already (it claims them too) */
        size_t at;
        if (op->pend) {   /* claimed before, not staged then */
            at = op->pend - 1;
            op->pend = 0;
        } else {
            at = claim(op, nd->me);
        }
        if (at == (size_t)-1) {
            op->off = sg.len;
            return 1;
        }
        o = at;
        l = sg.len - at;
        piece = DIRECT_SHARE_PIECE;
        op->off = at;   /* below: past this piece; the next call claims again */
        if (l > piece) l = piece;
        if (from_stage && staged_at(op, sg.peer, stage_pos(op, sg.peer) + o) < l) {
            op->pend = at + 1;   /* a claimed piece is read whole: wait for all of it */
            op->stage_wait = sg.peer;
            return staged;
        }
    }
    if (l > piece) l = piece;
    if (from_stage) {
        /* what the owner's counter covers, with a memcpy */
        size_t pos = stage_pos(op, sg.peer) + o, av = staged_at(op, sg.peer, pos);
        if (av == 0) {
            op->stage_wait = sg.peer;
            return staged;
        }
        if (l > av) l = av;
        memcpy(sg.dst + o, nd->stg[sg.peer] + pos, l);
        op->stage_wait = -1;
        op->off = o + l;
        if (op->off >= sg.len) PROBE_SEG(op->seg);
        return 1;
    }
    if (sg.kind == SEG_REDUCE && nd->n == 2 && nd->staged[1 - nd->me]) {
        /* the peer's operand from its staging area: what its counter
         * covers, whole elements (the last piece ends the slice) */
        size_t av = staged_at(op, 1 - nd->me, o);
        if (l > av) l = av - av % op->es;
        if (l == 0) {
            op->stage_wait = 1 - nd->me;
            return staged;
        }
        op->stage_wait = -1;
    }
    plx_status_t st;
    if (sg.kind == SEG_REDUCE)
        st = reduce_piece(op, &sg, o, l);
    else if (sg.kind == SEG_WRITE)
        st = push(op, sg.peer, nd->addr[sg.peer][sg.which] + sg.woff + o, sg.src + o, l);
    else
        st = pull(op, sg.peer, sg.dst + o, nd->addr[sg.peer][sg.which] + sg.roff + o, l);
    if (st != PLX_SUCCESS) {
        op->status = st;
        return -1;
    }
    op->off += l;
    if (op->off >= sg.len) PROBE_SEG(op->seg);
    return 1;
}

/* Step 4: nobody reads my buffers any more. */
static int drain(direct_op_t *op)
{
    struct node_direct *nd = op->nd;
    if (!op->wrote_done) {
        __atomic_store_n(done_of(nd->win[nd->me]), op->seq, __ATOMIC_RELEASE);
        announce(nd);
        op->wrote_done = 1;
    }
    /* a non-root of a star collective: nobody touches its buffers (above) */
    int wait = !op->star || nd->me == op->a.root;
    nd->hdr_open = !wait;   /* then the next turn fences (turn) */
    if (fin_drain(op)) {
        /* every element reduced and written out: end here, the next turn
         * waits for the members' done (see "Ending a claimed reduction") */
        if (!fin_reached(op)) return 0;
        nd->fin_open = op->seq;
        wait = 0;
    }
    if (op->star && op->a.coll == PLX_COLL_BCAST && nd->me == star_written(op) && op->status == PLX_SUCCESS) {
        /* the root writes into this rank's buffer: wait for the root alone */
        if (__atomic_load_n(done_of(nd->win[op->a.root]), __ATOMIC_ACQUIRE) < op->seq) {
            op->next = op->a.root;
            return 0;
        }
        op->next = nd->n;
    }
    /* (a header above s: that member took no part in s, see meet) */
    for (; wait && op->next < nd->n; op->next++)
        if (__atomic_load_n(done_of(nd->win[op->next]), __ATOMIC_ACQUIRE) < op->seq &&
            __atomic_load_n(&hdr_of(nd->win[op->next])->seq, __ATOMIC_ACQUIRE) <= op->seq)
            return 0;
    /* in-place reduce_scatter: block 0 of my buffer was rank 0's to read until now */
    if (op->status == PLX_SUCCESS && op->a.coll == PLX_COLL_REDUCE_SCATTER && op->aux)
        memcpy(op->a.rbuf, op->aux, op->bytes);
    nd->local_done = op->seq;
    op->phase = DIRECT_DONE;
    stage_give(op);   /* every member is done with it */
    if (nd->nclose) closes_run(nd);   /* a ghost waiting for this turn goes out now */
    return 1;
}

/* The collective failed here: later ones on this comm fail at once (the
 * peers may be anywhere in the protocol), and the peers learn it. */
static void fail(direct_op_t *op, plx_status_t st)
{
    struct node_direct *nd = op->nd;
    op->status = st;
    op->phase = DIRECT_DONE;
    nd->broken = 1;
    nd->broken_status = st;
    publish_failure(nd, op->seq, st);
}

/* Waiting in meet or drain for members that are on their own cores: keep
 * polling instead of letting the engine back off.  Its sched_yield hands
 * the core to any other runnable process (even a nice 19 one) for up to a
 * scheduler tick, while the member waited for is about to finish (drain:
 * it is inside this collective's work; meet: it is leaving the previous
 * one).  Only with a core for every member and op->solo (not a progress
 * thread that may share the core with a computing thread), and at most
 * DIRECT_SPIN_S per wait, then the usual backoff.  The budget is also a
 * quarter of this rank's own work time in the last collective: a member
 * that is not running (the cores taken by other processes) then costs a
 * bounded share more CPU, not a millisecond per collective (with a flat
 * 1 ms, coll_check at 2 ranks at nice 19 on a loaded machine went from
 * 49 s to past its 300 s limit once; the load may have done it alone). */
static int spin_on(direct_op_t *op)
{
    struct node_direct *nd = op->nd;
    if (!nd->spin || !op->solo) return 0;
    double budget = DIRECT_SPIN_SHARE * nd->work_s;
    if (budget > DIRECT_SPIN_S) budget = DIRECT_SPIN_S;
    double now = plx_now();
    if (op->spin_since == 0) op->spin_since = now;
    return now - op->spin_since < budget;
}

int plx_direct_advance(direct_op_t *op, int *moved)
{
    struct node_direct *nd = op->nd;
    if (op->phase == DIRECT_DONE) return 1;
    PROBE_CALL(0);
    if (op->v) {
        if (!plx_direct_v_advance(op, moved)) return 0;
        op->phase = DIRECT_DONE;
        return 1;
    }
    if (nd->broken) {
        op->status = nd->broken_status;
        op->phase = DIRECT_DONE;
        return 1;
    }
    if (op->phase == DIRECT_TURN) {
        int r = turn(op);
        if (r < 0) {
            fail(op, op->status);
            return 1;
        }
        if (!r) return 0;
        *moved = 1;
        op->phase = DIRECT_MEET;
    }
    if (op->phase == DIRECT_MEET) {
        int r = meet(op);
        if (r < 0) {
            fail(op, op->status);
            return 1;
        }
        if (!r) {
            /* (my staging needs nobody: do it while the others come) */
            if (op->stage && op->st_done < op->st_len) {
                stage_piece(op);
                *moved = 1;
            }
            if (spin_on(op)) *moved = 1;
            return 0;
        }
        *moved = 1;
        if (r == 2) stage_give(op);   /* nobody works on it: nobody reads my area */
        if (r == 2 && close_add(nd, op->seq, op->prev, op->status, 0)) {
            /* closed by a member: nobody works on it; the next turn waits
             * for the others to be past it */
            __atomic_store_n(done_of(nd->win[nd->me]), op->seq, __ATOMIC_RELEASE);
            announce(nd);
            op->phase = DIRECT_DONE;
            closes_run(nd);
            return 1;
        }
        op->spin_since = 0;
        op->work_since = plx_now();
        PROBE_MEET();
        /* a mismatch skips the work: nobody reads anything */
        op->phase = op->status == PLX_SUCCESS ? DIRECT_WORK : DIRECT_DRAIN;
    }
    if (op->phase == DIRECT_WORK) {
        int r = work(op);
        if (r < 0) {
            fail(op, op->status);
            return 1;
        }
        if (r > 0) *moved = 1;
        /* waiting for a member's staging, which is running on its own core */
        else if (op->stage_wait >= 0 && nd->spin && op->solo) *moved = 1;
        if (op->phase == DIRECT_WORK) return 0;   /* one piece per call */
        nd->work_s = plx_now() - op->work_since;
        PROBE_WORK();
    }
    if (op->phase == DIRECT_DRAIN) {
        if (drain(op)) *moved = 1;
        else if (spin_on(op)) *moved = 1;
    }
    if (op->phase == DIRECT_DONE) PROBE_END();
    return op->phase == DIRECT_DONE;
}

int plx_direct_publish(direct_op_t *op)
{
    if (op->v || op->phase != DIRECT_TURN || op->nd->broken) return 0;
    int r = turn(op);
    if (r < 0) {
        fail(op, op->status);
        return 1;
    }
    if (r) op->phase = DIRECT_MEET;
    return 0;
}

/* ---- sleeping waits (more ranks than cores) -------------------------------- */
/* A star bcast's non-root in its meet: it waits for the root alone. */
static int star_go_wait(const direct_op_t *op)
{
    return star_go(op) && op->phase == DIRECT_MEET && op->nd->me != op->a.root;
}

/* Fill t to sleep until member window w's word reaches want; 1 if it has
 * not yet.  The event count is read before the word, so a store between
 * the two reads shows here and the futex wait returns at once. */
static int sleep_on(direct_sleep_t *t, unsigned char *w, const uint64_t *word,
                    uint64_t want, int lone)
{
    t->event = event_of(w);
    t->sleepers = sleepers_of(w);
    t->ev = __atomic_load_n(t->event, __ATOMIC_SEQ_CST);
    t->word = word;
    t->want = want;
    t->lone = lone;
    return __atomic_load_n(t->word, __ATOMIC_SEQ_CST) < t->want;
}

int plx_direct_sleep_target(const direct_op_t *op, direct_sleep_t *t)
{
    const struct node_direct *nd = op->nd;
    if (op->v || !nd || !nd->oversub || op->phase == DIRECT_DONE) return 0;
    if ((op->phase == DIRECT_TURN && nd->fin_open && nd->local_done == op->prev) ||
        (op->phase == DIRECT_DRAIN && fin_drain(op))) {
        /* (see "Ending a claimed reduction") a turn waits for member
         * op->next's done, the drain for member 0's finished count */
        int turn = op->phase == DIRECT_TURN, m = turn ? op->next : 0;
        if (m < 0 || m >= nd->n || (turn && m == nd->me)) return 0;
        unsigned char *w = nd->win[m];
        return turn ? sleep_on(t, w, done_of(w), nd->fin_open, nd->lone_sleep)
                    : sleep_on(t, w, rfin_of(w), fin_tag(op->seq) | op->a.count, nd->lone_sleep);
    }
    if (op->phase != DIRECT_MEET && op->phase != DIRECT_DRAIN) return 0;
    int m = op->next, go = star_go_wait(op);
    if (go) m = op->a.root;
    if (m < 0 || m >= nd->n || m == nd->me) return 0;
    unsigned char *w = nd->win[m];
    const uint64_t *word = go ? go_of(w) : op->phase == DIRECT_MEET ? &hdr_of(w)->seq : done_of(w);
    /* (not a scatter: its calls are short, each reader copies one block
     * from the root, and no A/B showed it gaining from the early sleep;
     * medians 1.06-1.15x the time at 1-2 MiB, 4 ranks, within its launch
     * noise; perf/RESULTS.md, session s13b) */
    return sleep_on(t, w, word, op->seq, nd->lone_sleep && op->a.coll != PLX_COLL_SCATTER);
}

void plx_direct_sleep(direct_sleep_t *t, double max_s)
{
    __atomic_add_fetch(t->sleepers, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(t->word, __ATOMIC_SEQ_CST) < t->want) {
        struct timespec ts = { 0, (long)(max_s * 1e9) };
        syscall(SYS_futex, t->event, FUTEX_WAIT, t->ev, &ts, NULL, 0);
    }
    __atomic_sub_fetch(t->sleepers, 1, __ATOMIC_SEQ_CST);
}

int plx_direct_abort(direct_op_t *op, plx_status_t st)
{
    if (op->v) return plx_direct_v_abort(op, st);   /* a v-form: node_direct_v.c */
    struct node_direct *nd = op->nd;
    if (op->phase != DIRECT_TURN && op->phase != DIRECT_MEET) return 0;
    int missing = op->phase == DIRECT_TURN;
    /* (a star collective's member that met s and left counts as met) */
    for (int m = 0; m < nd->n && !missing; m++)
        missing = __atomic_load_n(&hdr_of(nd->win[m])->seq, __ATOMIC_ACQUIRE) != op->seq &&
                  !(op->star && m != op->a.root && __atomic_load_n(done_of(nd->win[m]), __ATOMIC_ACQUIRE) >= op->seq);
    if (!missing) return 0;   /* everyone met: they may be reading our buffers */
    stage_give(op);           /* (nobody met it: nobody reads my staging area) */
    fail(op, st);
    return 1;
}

/* ---- deadlines and dead peers ---------------------------------------------- */
int plx_direct_check(direct_op_t *op, double elapsed, double limit)
{
    if (op->phase == DIRECT_DONE) return 0;
    if (op->v) {
        if (!plx_direct_v_check(op, elapsed, limit)) return 0;
        op->phase = DIRECT_DONE;
        return 1;
    }
    struct node_direct *nd = op->nd;
    plx_comm_t c = op->comm;
    plx_context_t ctx = c->ctx;
    uint64_t s = op->seq;
    coll_rank_list_t waited = { "", 0, 0 };   /* who are we waiting for? */
    plx_status_t st = PLX_SUCCESS;
    int gave_up = -1;
    for (int m = 0; m < nd->n; m++) {
        if (m == nd->me) continue;
        /* any dead member dooms the collective: its buffers, results or done flag never come */
        if (plx_peer_status(ctx, nd->world[m]) != PLX_SUCCESS) st = PLX_ERR_PEER_FAILED;
        /* a member that gave up on it (timeout, error) will never finish it either: end
         * with its status */
        if (st == PLX_SUCCESS && nd->local_done == op->prev &&
            __atomic_load_n(fail_of(nd->win[m]), __ATOMIC_ACQUIRE) >= s) {
            st = (plx_status_t)__atomic_load_n(fail_status_of(nd->win[m]), __ATOMIC_RELAXED);
            gave_up = m;
        }
        int missing = 0;
        if (star_go_wait(op))
            missing = m == op->a.root && __atomic_load_n(go_of(nd->win[m]), __ATOMIC_ACQUIRE) != s;
        else if (op->phase == DIRECT_MEET)
            missing = __atomic_load_n(&hdr_of(nd->win[m])->seq, __ATOMIC_ACQUIRE) != s &&
                      !(op->star && m != op->a.root && __atomic_load_n(done_of(nd->win[m]), __ATOMIC_ACQUIRE) >= s);
        else if (op->phase == DIRECT_WORK)
            missing = op->stage_wait == m;   /* its staged input (see "Staged input") */
        else if (op->phase == DIRECT_TURN)
            missing = nd->fin_open && nd->local_done == op->prev &&
                      __atomic_load_n(done_of(nd->win[m]), __ATOMIC_ACQUIRE) < nd->fin_open;
        else if (op->phase == DIRECT_DRAIN)
            /* (a star bcast's written member waits for the root alone) */
            missing = __atomic_load_n(done_of(nd->win[m]), __ATOMIC_ACQUIRE) < s &&
                      !(star_go(op) && nd->me == star_written(op) && m != op->a.root);
        if (!missing) continue;
        coll_rank_list_add(&waited, m, nd->world[m]);
    }
    if (st == PLX_SUCCESS && elapsed < limit) return 0;
    if (st == PLX_SUCCESS) st = PLX_ERR_TIMEOUT;
    /* what this rank waits for, by phase; the ranks named after the last ": " */
    static const char *const what[] = { "an earlier collective of this communicator to end here",
                                        "rank(s) to enter the collective", "its own work",
                                        "rank(s) to finish with this rank's buffers" };
    const char *name = plx_coll_name(op->a.coll);
    if (gave_up >= 0)
        plx_error("plx_%s on comm %u (rank %d of %d), node-local sequence %llu (direct): rank %d "
                  "(world %d) gave up on it (%s); waiting for %s: %s", name, c->id, c->rank, c->size,
                  (unsigned long long)s, gave_up, nd->world[gave_up], plx_strerror(st), what[op->phase],
                  waited.n ? waited.text : "none");
    else if (st == PLX_ERR_PEER_FAILED)
        plx_error("plx_%s on comm %u (rank %d of %d), node-local sequence %llu (direct): a peer "
                  "failed; waiting for %s: %s", name, c->id, c->rank, c->size, (unsigned long long)s,
                  what[op->phase], waited.n ? waited.text : "none");
    else
        plx_error("plx_%s timed out after %g s on comm %u (rank %d of %d), node-local sequence %llu "
                  "(direct), waiting for %s: %s", name, limit, c->id, c->rank, c->size,
                  (unsigned long long)s, what[op->phase], waited.n ? waited.text : "none");
    fail(op, st);
    return 1;
}

/* ---- the node-local phase of a schedule (lib/coll/hier.c) ------------------ */
/* Its sequence number is taken when the schedule is built, not when the
 * phase starts: node-mates build their schedules in the same order, but
 * may start phases of different schedules in flight in different orders.
 * The number comes from the schedule's (see "Closed numbers" above). */
typedef struct direct_phase {
    plx_comm_t comm;
    coll_args_t a;
    uint64_t seq, prev;
    int started;
    direct_op_t op;
} direct_phase_t;

static int phase_start(void *arg, plx_status_t *st)
{
    direct_phase_t *ph = arg;
    op_init(ph->comm, ph->comm->direct_node, &ph->a, &ph->op);
    ph->op.seq = ph->seq;
    ph->op.prev = ph->prev;
    ph->started = 1;
    int moved = 0;
    if (!plx_direct_advance(&ph->op, &moved)) return 0;
    *st = ph->op.status;
    return 1;
}

static int phase_advance(void *arg, plx_status_t *st, int *moved)
{
    direct_phase_t *ph = arg;
    if (!plx_direct_advance(&ph->op, moved)) return 0;
    *st = ph->op.status;
    return 1;
}

static int phase_check(void *arg, double elapsed, double limit, plx_status_t *st)
{
    direct_phase_t *ph = arg;
    if (!plx_direct_check(&ph->op, elapsed, limit)) return 0;
    *st = ph->op.status;
    return 1;
}

static void phase_cancel(void *arg, plx_status_t st)
{
    direct_phase_t *ph = arg;
    struct node_direct *nd = ph->comm->direct_node;
    if (st == PLX_SUCCESS) st = PLX_ERR_INTERNAL;   /* (sched.h: never) */
    if (ph->started && ph->op.phase == DIRECT_DONE) return;
    if (!ph->started || ph->op.phase == DIRECT_TURN) {
        /* its header never went out, so nobody can work on it: a ghost
         * closes the number with the schedule's status (see "Closed
         * numbers"); node-mates waiting in it end with that status */
        if (nd->broken) return;
        if (close_add(nd, ph->seq, ph->prev, st, 1)) {
            closes_run(nd);
            return;
        }
        /* out of memory: the number stays open, so later ones fail at once */
        nd->broken = 1;
        nd->broken_status = st;
        publish_failure(nd, ph->seq, st);
        return;
    }
    /* the schedule failed elsewhere while node-mates may be working on
     * this phase's buffers: broken for them too */
    fail(&ph->op, st);
}

static const sched_hook_ops_t phase_ops = { phase_start, phase_advance, phase_check, phase_cancel };

void plx_direct_sched_phase(plx_sched_t *s, plx_comm_t comm, const coll_args_t *a)
{
    direct_phase_t *ph = sched_alloc(s, sizeof *ph);
    if (!ph) return;   /* recorded in the schedule */
    struct node_direct *nd = comm->direct_node;
    /* the schedule's number widened to 64 bits, and this phase's index in it */
    uint32_t cs = sched_seq(s);
    int k = 0, in_order = 1;
    if (!nd->cs_init) {
        nd->cs64 = cs;
        nd->cs_init = 1;
    } else if (cs == nd->cs_last) {
        k = nd->cs_k + 1;
    } else if ((int32_t)(cs - nd->cs_last) > 0) {
        nd->cs64 += (uint32_t)(cs - nd->cs_last);
    } else {
        in_order = 0;   /* built out of order (a reserved number): keep the numbers rising */
    }
    if (in_order) {
        nd->cs_last = cs;
        nd->cs_k = k;
    }
    uint64_t seq = comm->slots_seq_base + 1 + nd->cs64 * DIRECT_PHASES + (uint64_t)k;
    if (!in_order || k >= DIRECT_PHASES || seq < nd->next_seq) seq = nd->next_seq;
    ph->comm = comm;
    ph->a = *a;
    ph->prev = nd->next_seq - 1;
    ph->seq = seq;
    nd->next_seq = seq + 1;
    ph->started = 0;
    sched_hook(s, &phase_ops, ph);
}
