/*
 * Where the ranks run (BENCHMARK-RULES §8.1): each rank's host name, one communicator per host, the
 * host leaders' communicator, and the shifts of the benchmark derived from them.
 *
 * No rank holds a table of every rank's host (100,000 ranks x 64 bytes would be 6.4 MB on
 * every rank): the world is split by a hash of the host name, each split checks that its names
 * agree (and splits again on a hash collision), and the first rank of each host joins the
 * leaders' communicator, whose rank order numbers the hosts in order of their first rank. Rank
 * 0 gathers the hosts' names from the leaders only (O(nodes)); every other fact is a reduction
 * or a neighbour exchange. The split follows the host *name*, not MPI_COMM_TYPE_SHARED, so that
 * the simulated hosts of --simulate-ppn / --simulate-nodes are hosts here too.
 */
#include <stdlib.h>
#include <string.h>

#include "ioscore/hash.h"
#include "ioscore/run.h"

void ios_simulated_host(const char *real, int rank, int ppn, int nodes, char *out, size_t len)
{
    if (ppn > 0)
        snprintf(out, len, "%.40s#node%d", real, rank / ppn);
    else if (nodes > 0)
        snprintf(out, len, "%.40s#node%d", real, rank % nodes);
    else
        snprintf(out, len, "%.63s", real);
}

/* Splits `comm` (freed) until every rank of the part it lands in has its own host name: one
 * round per distinct name that collided with another's hash, so one round in practice. */
static MPI_Comm split_until_one_name(MPI_Comm comm, const char *host)
{
    for (;;) {
        char first[IOS_HOST_MAX];
        memcpy(first, host, IOS_HOST_MAX);
        MPI_Bcast(first, IOS_HOST_MAX, MPI_CHAR, 0, comm);
        int same = strncmp(first, host, IOS_HOST_MAX) == 0, all_same = 0;
        MPI_Allreduce(&same, &all_same, 1, MPI_INT, MPI_LAND, comm);
        if (all_same)
            return comm;
        MPI_Comm part;
        int rank = 0;
        MPI_Comm_rank(comm, &rank);
        MPI_Comm_split(comm, same ? 0 : 1, rank, &part);
        MPI_Comm_free(&comm);
        if (same)
            return part;
        comm = part;
    }
}

void ios_placement(struct ios_run *run, int simulate_ppn, int simulate_nodes)
{
    int len = 0;
    char name[MPI_MAX_PROCESSOR_NAME];
    MPI_Get_processor_name(name, &len);
    memset(run->host, 0, sizeof run->host);
    ios_simulated_host(name, run->rank, simulate_ppn, simulate_nodes, run->host, sizeof run->host);

    MPI_Comm by_hash;
    int color = (int)(ios_hash_bytes(0, run->host) & 0x7fffffff);
    if (getenv("IOSCORE_TEST_HASH_COLLISIONS")) /* test only: every host collides */
        color = 0;
    MPI_Comm_split(ios_test_comm, color, run->rank, &by_hash);
    run->node_comm = split_until_one_name(by_hash, run->host);
    int node_rank = 0, node_size = 0;
    MPI_Comm_rank(run->node_comm, &node_rank);
    MPI_Comm_size(run->node_comm, &node_size);
    /* key = world rank: leader i is the first rank of the i-th host to appear */
    MPI_Comm_split(ios_test_comm, node_rank == 0 ? 0 : MPI_UNDEFINED, run->rank,
                   &run->leaders_comm);
    run->node_id = 0;
    if (run->leaders_comm != MPI_COMM_NULL)
        MPI_Comm_rank(run->leaders_comm, &run->node_id);
    MPI_Bcast(&run->node_id, 1, MPI_INT, 0, run->node_comm);

    /* nodes, ranks on rank 0's node, and whether rank 1 shares rank 0's node, in one sum */
    int mine[3] = {node_rank == 0, run->rank == 0 ? node_size : 0,
                   run->rank == 1 && run->node_id == 0};
    int sums[3];
    MPI_Allreduce(mine, sums, 3, MPI_INT, MPI_SUM, ios_test_comm);
    run->nnodes = sums[0];
    run->ppn0 = sums[1];
    run->block_mapped = sums[2];

    run->node_hosts = NULL;
    if (run->rank == 0) {
        run->node_hosts = calloc((size_t)run->nnodes, sizeof *run->node_hosts);
        if (!run->node_hosts)
            ios_fatal("out of memory (host names)");
    }
    if (run->leaders_comm != MPI_COMM_NULL)
        MPI_Gather(run->host, IOS_HOST_MAX, MPI_CHAR, run->node_hosts, IOS_HOST_MAX, MPI_CHAR, 0,
                   run->leaders_comm);
}

int ios_shift_ranks_on_node(const struct ios_run *run, int shift)
{
    int n = run->size;
    shift = n > 0 ? ((shift % n) + n) % n : 0;
    int to = (run->rank - shift + n) % n, from = (run->rank + shift) % n;
    int theirs = run->node_id;
    MPI_Sendrecv(&run->node_id, 1, MPI_INT, to, 24, &theirs, 1, MPI_INT, from, 24, ios_test_comm,
                 MPI_STATUS_IGNORE);
    int same = theirs == run->node_id, n_same = 0;
    MPI_Allreduce(&same, &n_same, 1, MPI_INT, MPI_SUM, ios_test_comm);
    return n_same;
}

int ios_ior_shift(const struct ios_run *run)
{
    int s = run->block_mapped ? run->ppn0 : 1;
    return run->size > 0 ? s % run->size : 0;
}

/* mdtest's rule: with several nodes and block placement (rank 1 on rank 0's host) the stride
 * -N counts nodes, scaled by the tasks on node 0; otherwise it counts ranks. */
long ios_mdtest_stride(const struct ios_run *run, int n)
{
    return (long)n * ((run->nnodes > 1 && run->block_mapped) ? run->ppn0 : 1);
}

int ios_mdtest_shift(const struct ios_run *run)
{
    return run->size > 0 ? (int)(ios_mdtest_stride(run, 1) % run->size) : 0;
}
