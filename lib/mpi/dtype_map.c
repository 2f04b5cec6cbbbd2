/*
 * lib/mpi/dtype_map.c — MPI datatypes and ops as Plexus sees them.
 *
 * Reductions: a predefined MPI type with a Plexus twin of the same size
 * and kind (MPI_INT -> int32, MPI_DOUBLE -> float64, MPI_BYTE -> uint8 for
 * the bitwise ops only, ...) and a predefined op Plexus has (sum, prod,
 * min, max, band, bor, bxor) or an MPI_Op_create'd one (op_user.c).  The
 * rest (MPI_SHORT, MPI_LONG_DOUBLE, pair types, MPI_LAND, MPI_MINLOC, user
 * ops on derived types, ...) stays with MPI, which also
 * judges invalid combinations (a bitwise op on a float) itself.
 *
 * Data movement (bcast, allgather, alltoall, gather, scatter) is bytes to
 * Plexus, so any datatype goes: a dense one (no gaps, lower bound 0) is
 * handed over as it lies, any other is packed into a temporary buffer and
 * unpacked afterwards.  Routing therefore never depends on the datatype,
 * which MPI lets ranks choose differently as long as the type signatures
 * match — a decision on the layout could differ between ranks and leave
 * them waiting in different libraries.
 */
#include "layer.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void *pm_in_place(const void *buf)
{
    return buf == MPI_IN_PLACE ? PLX_IN_PLACE : (void *)buf;
}

/* ---- predefined datatypes, asked about once -------------------------------
 * Every call needs its datatype's size, a reduction the type's Plexus twin
 * and staging whether it is dense.  For the predefined types none of that
 * ever changes, so pm_types_init (MPI_Init) asks MPI once and keeps the
 * answers in a small table keyed by the handle, read without a lock (it is
 * written before the layer routes anything).  Derived types are asked each
 * time: MPI reuses their handles after MPI_Type_free. */
pm_type_info_t pm_types[PM_TYPE_SLOTS];

static int is_dense_asked(MPI_Datatype t, long size);

static void type_add(MPI_Datatype t, int red, plx_dtype_t pdt)
{
    int size = -1;
    if (t == MPI_DATATYPE_NULL || pm_type_find(t) || PMPI_Type_size(t, &size) != MPI_SUCCESS ||
        size < 0)
        return;
    unsigned i = pm_hash(pm_cache_key_type(t), PM_TYPE_BITS);
    for (unsigned n = 0; n < PM_TYPE_SLOTS; n++, i = (i + 1) & (PM_TYPE_SLOTS - 1)) {
        if (pm_types[i].used) continue;
        pm_types[i] = (pm_type_info_t){ .t = t, .used = 1, .size = size, .red = red, .pdt = pdt,
                                      .dense = is_dense_asked(t, size) };
        return;
    }
}

/* integer kinds by C size, so MPI_LONG follows the platform's long */
static void add_int(MPI_Datatype t, size_t size, int is_signed)
{
    switch (size) {
    case 1: type_add(t, PM_RED_INT, is_signed ? PLX_INT8 : PLX_UINT8); break;
    case 4: type_add(t, PM_RED_INT, is_signed ? PLX_INT32 : PLX_UINT32); break;
    case 8: type_add(t, PM_RED_INT, is_signed ? PLX_INT64 : PLX_UINT64); break;
    default: type_add(t, PM_RED_NONE, PLX_UINT8); break;
    }
}

void pm_types_init(void)
{
    add_int(MPI_SIGNED_CHAR, sizeof(signed char), 1);
    add_int(MPI_UNSIGNED_CHAR, sizeof(unsigned char), 0);
    add_int(MPI_INT8_T, 1, 1);
    add_int(MPI_UINT8_T, 1, 0);
    add_int(MPI_INT, sizeof(int), 1);
    add_int(MPI_UNSIGNED, sizeof(unsigned), 0);
    add_int(MPI_INT32_T, 4, 1);
    add_int(MPI_UINT32_T, 4, 0);
    add_int(MPI_LONG, sizeof(long), 1);
    add_int(MPI_UNSIGNED_LONG, sizeof(unsigned long), 0);
    add_int(MPI_LONG_LONG, sizeof(long long), 1);
    add_int(MPI_LONG_LONG_INT, sizeof(long long), 1);
    add_int(MPI_UNSIGNED_LONG_LONG, sizeof(unsigned long long), 0);
    add_int(MPI_INT64_T, 8, 1);
    add_int(MPI_UINT64_T, 8, 0);
    add_int(MPI_AINT, sizeof(MPI_Aint), 1);
    add_int(MPI_OFFSET, sizeof(MPI_Offset), 1);
    add_int(MPI_COUNT, sizeof(MPI_Count), 1);
    if (sizeof(float) == 4) type_add(MPI_FLOAT, PM_RED_FLOAT, PLX_FLOAT32);
    if (sizeof(double) == 8) type_add(MPI_DOUBLE, PM_RED_FLOAT, PLX_FLOAT64);
    type_add(MPI_BYTE, PM_RED_BYTE, PLX_UINT8);     /* the bitwise ops only (MPI's rule) */
    /* data movement only (reductions stay with MPI) */
    const MPI_Datatype other[] = {
        MPI_CHAR, MPI_SHORT, MPI_UNSIGNED_SHORT, MPI_INT16_T, MPI_UINT16_T, MPI_FLOAT, MPI_DOUBLE,
        MPI_LONG_DOUBLE, MPI_WCHAR, MPI_C_BOOL, MPI_C_FLOAT_COMPLEX, MPI_C_DOUBLE_COMPLEX,
        MPI_C_LONG_DOUBLE_COMPLEX, MPI_PACKED, MPI_FLOAT_INT, MPI_DOUBLE_INT, MPI_LONG_INT,
        MPI_2INT, MPI_SHORT_INT, MPI_LONG_DOUBLE_INT,
    };
    for (size_t i = 0; i < sizeof other / sizeof other[0]; i++) type_add(other[i], PM_RED_NONE, PLX_UINT8);
}

long pm_type_size_asked(MPI_Datatype type)
{
    int size = -1;
    if (type == MPI_DATATYPE_NULL || PMPI_Type_size(type, &size) != MPI_SUCCESS) return -1;
    return size;
}

pm_why_t pm_map_reduction(MPI_Datatype dt, MPI_Op op, plx_dtype_t *pdt, plx_op_t *pop)
{
    const pm_type_info_t *ti = pm_type_find(dt);
    int red = ti ? ti->red : PM_RED_NONE;
    int bitwise = op == MPI_BAND || op == MPI_BOR || op == MPI_BXOR;
    if (op == MPI_SUM) *pop = PLX_SUM;
    else if (op == MPI_PROD) *pop = PLX_PROD;
    else if (op == MPI_MIN) *pop = PLX_MIN;
    else if (op == MPI_MAX) *pop = PLX_MAX;
    else if (op == MPI_BAND) *pop = PLX_BAND;
    else if (op == MPI_BOR) *pop = PLX_BOR;
    else if (op == MPI_BXOR) *pop = PLX_BXOR;
    else if (red != PM_RED_INT && red != PM_RED_FLOAT) return PM_WHY_TYPE;    /* user ops: predefined types only */
    else {
        *pdt = ti->pdt;
        return pm_user_op(op, dt, pop) ? PM_TO_PLEXUS : PM_WHY_OP;
    }
    if (red == PM_RED_BYTE) {              /* MPI allows only the bitwise ops on bytes */
        *pdt = PLX_UINT8;
        return bitwise ? PM_TO_PLEXUS : PM_WHY_TYPE;
    }
    if (red == PM_RED_NONE) return PM_WHY_TYPE;
    *pdt = ti->pdt;
    if (red == PM_RED_FLOAT && bitwise) return PM_WHY_OP;     /* MPI reports the error */
    return PM_TO_PLEXUS;
}

/* dense: count elements lie as count*size bytes from buf on */
static int is_dense(MPI_Datatype t, long size)
{
    const pm_type_info_t *ti = pm_type_find(t);
    return ti ? ti->dense : is_dense_asked(t, size);
}

static int is_dense_asked(MPI_Datatype t, long size)
{
    MPI_Aint lb, extent, tlb, textent;
    if (PMPI_Type_get_extent(t, &lb, &extent) != MPI_SUCCESS ||
        PMPI_Type_get_true_extent(t, &tlb, &textent) != MPI_SUCCESS)
        return 0;
    return lb == 0 && tlb == 0 && extent == size && textent == size;
}

/* Block i of nblocks lies at buf + i * count * extent (the whole receive
 * buffer of an allgather is nblocks = ranks blocks of count elements), or
 * for a v-form at buf + vdispls[i] * extent with vcounts[i] elements. */
static int pack_blocks(pm_stage_t *s, int unpack)
{
    MPI_Aint lb, extent;
    PMPI_Type_get_extent(s->type, &lb, &extent);
    int pos = 0;
    for (int i = 0; i < s->nblocks; i++) {
        int n = s->vcounts ? s->vcounts[i] : s->count;
        char *blk = (char *)s->user + (s->vcounts ? (MPI_Aint)s->vdispls[i] * extent
                                                   : (MPI_Aint)i * s->count * extent);
        if (!n) continue;
        int rc = unpack ? PMPI_Unpack(s->tmp, (int)s->bytes, &pos, blk, n, s->type, MPI_COMM_SELF)
                        : PMPI_Pack(blk, n, s->type, s->tmp, (int)s->bytes, &pos, MPI_COMM_SELF);
        if (rc != MPI_SUCCESS) return rc;
    }
    return (size_t)pos == s->bytes ? MPI_SUCCESS : MPI_ERR_INTERN;
}

int pm_stage_open(pm_stage_t *s, const void *buf, int count, int nblocks, MPI_Datatype type,
                  int copy_in, int copy_out, void **ptr)
{
    memset(s, 0, sizeof *s);
    long size = pm_type_size(type);
    if (size < 0 || count < 0 || nblocks < 0) return MPI_ERR_TYPE;
    s->bytes = (size_t)count * (size_t)nblocks * (size_t)size;
    if (buf == MPI_IN_PLACE || s->bytes == 0 || is_dense(type, size)) {
        *ptr = (void *)buf;
        return MPI_SUCCESS;
    }
    if (s->bytes > (size_t)0x7fffffff) return MPI_ERR_COUNT;   /* MPI_Pack positions are int */
    s->tmp = malloc(s->bytes);
    if (!s->tmp) return MPI_ERR_NO_MEM;
    s->user = (void *)buf;
    s->count = count;
    s->nblocks = nblocks;
    s->type = type;
    s->out = copy_out;
    int rc = MPI_SUCCESS;
    if (copy_in) rc = pack_blocks(s, 0);
    /* MPI lets the application free the datatype as soon as a nonblocking
     * call has started: unpack later with a reference of our own */
    if (rc == MPI_SUCCESS && copy_out && (rc = PMPI_Type_dup(type, &s->type)) == MPI_SUCCESS)
        s->dup = 1;
    if (rc != MPI_SUCCESS) {
        free(s->tmp);
        s->tmp = NULL;
        s->out = 0;
        return rc;
    }
    *ptr = s->tmp;
    return MPI_SUCCESS;
}

int pm_stage_open_v(pm_stage_t *s, const void *buf, const int *counts, const int *displs, int n,
                    MPI_Datatype type, int copy_in, int copy_out, void **ptr, size_t *bcounts,
                    size_t *bdispls)
{
    memset(s, 0, sizeof *s);
    long size = pm_type_size(type);
    MPI_Aint lb, extent;
    if (size < 0 || PMPI_Type_get_extent(type, &lb, &extent) != MPI_SUCCESS) return MPI_ERR_TYPE;
    if (!counts || !displs) return MPI_ERR_ARG;
    size_t total = 0;
    long low = 0;
    int any = 0;
    for (int i = 0; i < n; i++) {
        if (counts[i] < 0) return MPI_ERR_COUNT;
        total += (size_t)counts[i] * (size_t)size;
        if (counts[i] && (!any || displs[i] < low)) low = displs[i];
        any |= counts[i] != 0;
    }
    s->bytes = total;
    if (total == 0 || is_dense(type, size)) {
        /* Plexus wants displacements >= 0: measure them from the lowest block */
        for (int i = 0; i < n; i++) {
            bcounts[i] = (size_t)counts[i] * (size_t)size;
            bdispls[i] = counts[i] ? (size_t)((displs[i] - low) * extent) : 0;
        }
        *ptr = total ? (char *)buf + low * extent : (void *)buf;
        return MPI_SUCCESS;
    }
    if (total > (size_t)0x7fffffff) return MPI_ERR_COUNT;
    size_t off = 0;
    for (int i = 0; i < n; i++) {
        bcounts[i] = (size_t)counts[i] * (size_t)size;
        bdispls[i] = off;
        off += bcounts[i];
    }
    s->tmp = malloc(total);
    if (!s->tmp) return MPI_ERR_NO_MEM;
    s->user = (void *)buf;
    s->nblocks = n;
    s->vcounts = counts;
    s->vdispls = displs;
    s->type = type;
    s->out = copy_out;
    int rc = copy_in ? pack_blocks(s, 0) : MPI_SUCCESS;
    if (rc == MPI_SUCCESS && copy_out && (rc = PMPI_Type_dup(type, &s->type)) == MPI_SUCCESS)
        s->dup = 1;
    if (rc != MPI_SUCCESS) {
        free(s->tmp);
        s->tmp = NULL;
        s->out = 0;
        return rc;
    }
    *ptr = s->tmp;
    return MPI_SUCCESS;
}

int pm_stage_close(pm_stage_t *s)
{
    int rc = MPI_SUCCESS;
    if (!s->tmp) return rc;
    if (s->out) rc = pack_blocks(s, 1);
    if (s->dup) PMPI_Type_free(&s->type);
    s->dup = 0;
    free(s->tmp);
    s->tmp = NULL;
    return rc;
}
