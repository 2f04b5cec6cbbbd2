/*
 * lib/core/status.c — status strings, the version string, and the one-line
 * message every rejected argument produces.
 */
#include "plx_internal.h"

#include <stdarg.h>
#include <stdio.h>

static const char *const status_text[PLX_STATUS_COUNT] = {
    [PLX_SUCCESS]           = "success",
    [PLX_ERR_INVALID_ARG]   = "invalid argument",
    [PLX_ERR_NO_MEMORY]     = "out of memory",
    [PLX_ERR_TIMEOUT]       = "timed out waiting for a peer (PLX_TIMEOUT)",
    [PLX_ERR_PEER_FAILED]   = "a peer process failed",
    [PLX_ERR_TRANSPORT]     = "transport error",
    [PLX_ERR_BOOTSTRAP]     = "bootstrap failed: could not reach or authenticate with the other ranks",
    [PLX_ERR_NOT_SUPPORTED] = "not supported by this build or machine",
    [PLX_ERR_TRUNCATE]      = "message truncated: receive buffer too small",
    [PLX_ERR_INTERNAL]      = "internal error in Plexus",
    [PLX_ERR_COMPUTE_FAILED] = "a compute node of the task graph failed (returned non-zero)",
    [PLX_ERR_MISMATCH]      = "the ranks disagree on a collective call (collective, size, root or op)",
};

const char *plx_strerror(plx_status_t status)
{
    if ((int)status < 0 || status >= PLX_STATUS_COUNT) return "unknown status code";
    return status_text[status];
}

const char *plx_version_string(void)
{
#define PLX_STR2(x) #x
#define PLX_STR(x) PLX_STR2(x)
    return PLX_STR(PLX_VERSION_MAJOR) "." PLX_STR(PLX_VERSION_MINOR) "." PLX_STR(PLX_VERSION_PATCH)
        " (shm"
#if PLX_HAVE_UCX
        " ucx"
#endif
#if PLX_HAVE_CUDA
        " cuda"
#endif
#if PLX_HAVE_NCCL
        " nccl"
#endif
        ")";
}

plx_status_t plx_version(int *major, int *minor, int *patch)
{
    if (major) *major = PLX_VERSION_MAJOR;
    if (minor) *minor = PLX_VERSION_MINOR;
    if (patch) *patch = PLX_VERSION_PATCH;
    return PLX_SUCCESS;
}

plx_status_t plx_bad_arg(const char *fn, const char *fmt, ...)
{
    plx_log_lazy_init();
    if (plx_log_level >= PLX_LOG_WARN) {
        char msg[512];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        plx_log_msg(PLX_LOG_WARN, "%s: %s", fn, msg);
    }
    return PLX_ERR_INVALID_ARG;
}
