/*
 * lib/mpi/comm_create.c — the MPI calls that make a communicator
 * collectively over a parent: each runs in MPI, then the new communicator
 * gets its Plexus twin (comm_mirror.c explains how and why then).
 *
 * Not here, so their communicators keep their collectives in MPI:
 * MPI_Comm_create_group (collective over the group only), MPI_Comm_idup
 * (nonblocking), MPI_Intercomm_create/merge, MPI_Comm_spawn/connect/accept.
 */
#include "layer.h"

/* PMPI_X has made *newcomm over parent: add the twin. */
static int derive(int rc, MPI_Comm parent, MPI_Comm *newcomm)
{
    if (rc != MPI_SUCCESS || !pm.active) return rc;
    return pm_mirror_derive(parent, *newcomm);
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    return derive(PMPI_Comm_dup(comm, newcomm), comm, newcomm);
}

int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
    return derive(PMPI_Comm_dup_with_info(comm, info, newcomm), comm, newcomm);
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    return derive(PMPI_Comm_split(comm, color, key, newcomm), comm, newcomm);
}

int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info,
                        MPI_Comm *newcomm)
{
    return derive(PMPI_Comm_split_type(comm, split_type, key, info, newcomm), comm, newcomm);
}

int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    return derive(PMPI_Comm_create(comm, group, newcomm), comm, newcomm);
}

int MPI_Cart_create(MPI_Comm comm, int ndims, const int dims[], const int periods[],
                    int reorder, MPI_Comm *newcomm)
{
    return derive(PMPI_Cart_create(comm, ndims, dims, periods, reorder, newcomm), comm, newcomm);
}

int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm)
{
    return derive(PMPI_Cart_sub(comm, remain_dims, newcomm), comm, newcomm);
}

int MPI_Graph_create(MPI_Comm comm, int nnodes, const int index[], const int edges[],
                     int reorder, MPI_Comm *newcomm)
{
    return derive(PMPI_Graph_create(comm, nnodes, index, edges, reorder, newcomm), comm,
                  newcomm);
}

int MPI_Dist_graph_create(MPI_Comm comm, int n, const int sources[], const int degrees[],
                          const int destinations[], const int weights[], MPI_Info info,
                          int reorder, MPI_Comm *newcomm)
{
    return derive(PMPI_Dist_graph_create(comm, n, sources, degrees, destinations, weights, info,
                                         reorder, newcomm), comm, newcomm);
}

int MPI_Dist_graph_create_adjacent(MPI_Comm comm, int indegree, const int sources[],
                                   const int sourceweights[], int outdegree,
                                   const int destinations[], const int destweights[],
                                   MPI_Info info, int reorder, MPI_Comm *newcomm)
{
    return derive(PMPI_Dist_graph_create_adjacent(comm, indegree, sources, sourceweights,
                                                  outdegree, destinations, destweights, info,
                                                  reorder, newcomm), comm, newcomm);
}
