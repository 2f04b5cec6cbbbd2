/*
 * lib/api/scan.c — the public prefix reductions plx_scan and plx_exscan
 * and their i-forms.  Their arguments are checked with every other
 * collective's (plx_coll_check_args in lib/api/coll.c); the algorithms are
 * in lib/coll/scan.c.
 */
#include "api/vcoll.h"

plx_status_t plx_scan(const void *sendbuf, void *recvbuf, size_t count, plx_dtype_t dt,
                      plx_op_t op, plx_comm_t comm)
{
    coll_args_t a = SCAN_ARGS(PLX_COLL_SCAN, sendbuf, recvbuf, count, dt, op);
    return plx_vcoll_call("plx_scan", comm, &a);
}

plx_status_t plx_iscan(const void *sendbuf, void *recvbuf, size_t count, plx_dtype_t dt,
                       plx_op_t op, plx_comm_t comm, plx_request_t *req)
{
    coll_args_t a = SCAN_ARGS(PLX_COLL_SCAN, sendbuf, recvbuf, count, dt, op);
    return plx_vcoll_icall("plx_iscan", comm, &a, req);
}

plx_status_t plx_exscan(const void *sendbuf, void *recvbuf, size_t count, plx_dtype_t dt,
                        plx_op_t op, plx_comm_t comm)
{
    coll_args_t a = SCAN_ARGS(PLX_COLL_EXSCAN, sendbuf, recvbuf, count, dt, op);
    return plx_vcoll_call("plx_exscan", comm, &a);
}

plx_status_t plx_iexscan(const void *sendbuf, void *recvbuf, size_t count, plx_dtype_t dt,
                         plx_op_t op, plx_comm_t comm, plx_request_t *req)
{
    coll_args_t a = SCAN_ARGS(PLX_COLL_EXSCAN, sendbuf, recvbuf, count, dt, op);
    return plx_vcoll_icall("plx_iexscan", comm, &a, req);
}
