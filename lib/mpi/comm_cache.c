/*
 * lib/mpi/comm_cache.c — MPI communicator handle -> the layer's record of
 * it (comm_mirror.c), found without asking MPI.
 *
 * Every collective call starts by finding its communicator's record; a
 * call that the routing table leaves to MPI must cost next to nothing
 * (issue 15), and MPI's own lookups (MPI_Comm_get_attr, MPI_Comm_size,
 * ...) cost tens to hundreds of instructions each, some behind MPI's
 * locks.  So the records are also kept here, in one open-addressed table
 * keyed by the handle's bits (a pointer under Open MPI, an int under
 * MPICH): a lookup is a hash, one or two loads and a compare
 * (pm_cache_find, layer.h).
 *
 * Readers take no lock: the writers (a communicator's first collective,
 * and the attribute's delete callback when MPI frees it) hold `lock`, write
 * a slot's record before its key (release) and retire a slot by turning
 * its key into a tombstone, never by moving entries, so a reader sees
 * either the right record or a miss.  A miss is never wrong, only slow:
 * the caller then asks MPI (the attribute is the truth) and fills the slot.
 * A handle MPI reuses after a free is no problem: the delete callback
 * retired the old slot before MPI_Comm_free returned.  The table never
 * grows: with every slot live or a tombstone, a new communicator is simply
 * not cached and its calls take the slow path.
 */
#include "layer.h"

#include <pthread.h>

pm_slot_t pm_cache[PM_CACHE_SLOTS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

int pm_cache_insert(MPI_Comm comm, pm_mirror_t *m)
{
    uintptr_t k = pm_cache_key(comm);
    unsigned i = pm_cache_home(k), free_at = PM_CACHE_SLOTS;
    int ok = 0;
    pthread_mutex_lock(&lock);
    for (unsigned n = 0; n < PM_CACHE_SLOTS; n++, i = (i + 1) & (PM_CACHE_SLOTS - 1)) {
        uintptr_t s = atomic_load_explicit(&pm_cache[i].key, memory_order_relaxed);
        if (s == k) {                   /* already there (a slow-path refill) */
            free_at = PM_CACHE_SLOTS;
            ok = atomic_load_explicit(&pm_cache[i].rec, memory_order_relaxed) == m;
            break;
        }
        if (s == PM_SLOT_TOMB && free_at == PM_CACHE_SLOTS) free_at = i;
        if (s == PM_SLOT_EMPTY) {
            if (free_at == PM_CACHE_SLOTS) free_at = i;
            break;
        }
    }
    if (free_at < PM_CACHE_SLOTS) {
        atomic_store_explicit(&pm_cache[free_at].rec, m, memory_order_relaxed);
        atomic_store_explicit(&pm_cache[free_at].key, k, memory_order_release);
        ok = 1;
    }
    pthread_mutex_unlock(&lock);
    return ok;
}

void pm_cache_remove(MPI_Comm comm, const pm_mirror_t *m)
{
    uintptr_t k = pm_cache_key(comm);
    unsigned i = pm_cache_home(k);
    pthread_mutex_lock(&lock);
    for (unsigned n = 0; n < PM_CACHE_SLOTS; n++, i = (i + 1) & (PM_CACHE_SLOTS - 1)) {
        uintptr_t s = atomic_load_explicit(&pm_cache[i].key, memory_order_relaxed);
        if (s == PM_SLOT_EMPTY) break;
        if (s == k && atomic_load_explicit(&pm_cache[i].rec, memory_order_relaxed) == m) {
            atomic_store_explicit(&pm_cache[i].key, PM_SLOT_TOMB, memory_order_release);
            atomic_store_explicit(&pm_cache[i].rec, NULL, memory_order_relaxed);
            break;
        }
    }
    pthread_mutex_unlock(&lock);
}
