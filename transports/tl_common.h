/*
 * transports/tl_common.h — what the message transports (shm, ucx) share:
 * the request fields they both keep, tag matching on the posted queue, the
 * copy of an eager payload into a posted receive, and the pidfd that
 * watches a peer process on the same kernel (the intrusive lists they use are
 * in transport.h).
 *
 * Only transports include this (the core sees transport.h alone).  All of it
 * is static inline: it sits on the send / receive hot path, and inlining
 * keeps each transport's code what it was when it carried its own copy.
 */
#ifndef PLX_TL_COMMON_H
#define PLX_TL_COMMON_H

#include <poll.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "transport.h"

/* Request fields every message transport keeps (tl_ptr[1] and later are its
 * own: shm's transfer, ucx's operation). */
#define RQ_TAG(r)    ((r)->tl_u64[0])
#define RQ_LEN(r)    ((r)->tl_u64[1])
#define RQ_STATE(r)  ((r)->tl_u64[2])   /* the transport's own enum; 0 = in no queue */
#define RQ_PEER(r)   ((r)->tl_u64[3])   /* the transport's peer index */
#define RQ_BUF(r)    ((r)->tl_ptr[0])

/* A fresh request: not done, in no queue, no bytes yet; tl_ptr[1] cleared. */
static inline void plx_tl_req_init(plx_tl_req_t *r, uint64_t tag, void *buf, size_t len,
                                   int peer)
{
    r->done = 0;
    r->status = PLX_SUCCESS;
    r->bytes = 0;
    r->tl_next = r->tl_prev = NULL;
    RQ_TAG(r) = tag;
    RQ_LEN(r) = len;
    RQ_STATE(r) = 0;
    RQ_PEER(r) = (uint64_t)peer;
    RQ_BUF(r) = buf;
    r->tl_ptr[1] = NULL;
}

/* Take the oldest posted receive with exactly this tag (the matching rule of
 * transport.h), or NULL. */
static inline plx_tl_req_t *plx_tl_match_posted(plx_tl_rq_t *posted, uint64_t tag)
{
    for (plx_tl_req_t *r = posted->head; r; r = r->tl_next)
        if (RQ_TAG(r) == tag) {
            plx_tl_rq_remove(posted, r);
            return r;
        }
    return NULL;
}

/* Copy an eager payload of len bytes into receive r, as much as it holds;
 * r->bytes says what arrived.  Returns the receive's status (TRUNCATE when
 * the payload was longer than the buffer); the caller completes r with it. */
static inline plx_status_t plx_tl_eager_copy(plx_tl_req_t *r, const void *data, uint64_t len)
{
    uint64_t cap = RQ_LEN(r), n = len < cap ? len : cap;
    if (n) memcpy(RQ_BUF(r), data, n);
    r->bytes = len;
    return len > cap ? PLX_ERR_TRUNCATE : PLX_SUCCESS;
}

/* A pidfd on a peer process on this kernel, or -1 (no pidfd_open, other pid
 * namespace).  pidfds are close-on-exec by definition. */
static inline int plx_tl_pidfd_open(pid_t pid)
{
#ifdef SYS_pidfd_open
    long fd = syscall(SYS_pidfd_open, pid, 0);
    if (fd >= 0) return (int)fd;
#else
    (void)pid;
#endif
    return -1;
}

/* Whether the process behind pidfd has exited: a pidfd turns readable then,
 * which is immune to pid reuse and to zombies. */
static inline int plx_tl_pidfd_exited(int pidfd)
{
    struct pollfd pf = { .fd = pidfd, .events = POLLIN };
    return poll(&pf, 1, 0) > 0 && (pf.revents & (POLLIN | POLLHUP));
}

#endif /* PLX_TL_COMMON_H */
