/*
 * lib/api/local_rank.h — plx_init's half of lib/api/local_rank.c: publish
 * this rank's place on its node as PLX_LOCAL_RANK / PLX_LOCAL_SIZE.
 */
#ifndef PLX_API_LOCAL_RANK_H
#define PLX_API_LOCAL_RANK_H

/* node_of[r] = node index of world rank r (size entries, from the
 * bootstrap's node discovery).  Sets PLX_LOCAL_RANK / PLX_LOCAL_SIZE in the
 * process environment unless PLX_LOCAL_RANK is already set (a launcher's
 * word wins); does nothing when setenv fails. */
void plx_local_rank_publish(const int *node_of, int size, int rank);

#endif
