/*
 * The machine and its grid: initMachine, getMachineType, shutdownMachine;
 * declareTopology places the grid on the mesh (the engine does,
 * goLqcdPlace), getGridCoordinates and getGridHost read it.
 */
#include "lqcd_face.h"

int initMachine(void)
{
    struct lqcd_core *c = lq_core_of_caller("initMachine", 0);
    if (!c)
        return -1;
    c->init = 1;
    atomic_store(&c->shut, 0);
    if (lq.ranks)
        world_progress(lq_poll); /* this rank answers other ranks while its cores wait in barriers too */
    return 0;
}

int getMachineType(void)
{
    return 2;
}

static int incomplete(struct lqcd_chan *ch)
{
    lq_refresh(ch);
    int s = atomic_load(&ch->state);
    return s == CH_PENDING || s == CH_ARMED || s == CH_CLAIMED;
}

int shutdownMachine(void)
{
    struct lqcd_core *c = lq_core_of_caller("shutdownMachine", 1);
    if (!c)
        return -1;
    int open = 0;
    for (struct lqcd_chan *ch = c->owned; ch; ch = ch->owned_next)
        open += incomplete(ch);
    c->init = 0;
    atomic_store(&c->shut, 1);
    if (open)
        lq_seterr(LQCD_ERR_BUSY, "shutdownMachine: %d operations of core %d are not complete", open,
               ebsp_self->pid);
    return open;
}

void declareTopology(int dimensions[], int ndimensions, int localHost)
{
    struct lqcd_core *c = lq_core_of_caller("declareTopology", 1);
    if (!c)
        return;
    int pid = ebsp_self->pid;
    c->topo = 0;
    if (localHost != pid) {
        lq_seterr(LQCD_ERR_TOPOLOGY, "declareTopology: localHost %d, but this is core %d (bsp_pid())", localHost, pid);
        return;
    }
    if (!dimensions || ndimensions < 1 || ndimensions > LQCD_MAX_DIMS) {
        lq_seterr(LQCD_ERR_TOPOLOGY, "declareTopology: %d dimensions%s (want 1..%d)", ndimensions,
               dimensions ? "" : " in a NULL array", LQCD_MAX_DIMS);
        return;
    }
    /* the engine (Go) reads a copy: a fault inside Go could not be reported */
    size_t dims_bytes = (size_t)ndimensions * sizeof(int);
    if (user_memory_good(dimensions, dims_bytes, 0) < dims_bytes) {
        lq_seterr(LQCD_ERR_ARG, "declareTopology: cannot read the array of %d dimensions at %p: no readable memory there",
               ndimensions, (void *)dimensions);
        return;
    }
    int dims[LQCD_MAX_DIMS];
    memcpy(dims, dimensions, dims_bytes);
    dimensions = dims;
    int ok = 0;
    pthread_mutex_lock(&lq.topo_lock);
    if (!lq.topo) {
        int *pid_of_rank = malloc((size_t)lq.n * sizeof(int));
        int *rank_of_pid = malloc((size_t)lq.n * sizeof(int));
        char err[200];
        if (!pid_of_rank || !rank_of_pid) {
            lq_seterr(LQCD_ERR_NOMEM, "declareTopology: out of memory");
        } else if (!goLqcdPlace(dimensions, ndimensions, lq.n, pid_of_rank, err, sizeof err)) {
            lq_seterr(LQCD_ERR_TOPOLOGY, "declareTopology: %s", err);
        } else {
            for (int r = 0; r < lq.n; r++)
                rank_of_pid[pid_of_rank[r]] = r;
            lq.ndims = ndimensions;
            memcpy(lq.dims, dimensions, (size_t)ndimensions * sizeof(int));
            lq.pid_of_rank = pid_of_rank;
            lq.rank_of_pid = rank_of_pid;
            lq.topo = 1;
            ok = 1;
            pid_of_rank = rank_of_pid = NULL;
        }
        free(pid_of_rank);
        free(rank_of_pid);
    } else {
        int same = ndimensions == lq.ndims;
        for (int d = 0; same && d < ndimensions; d++)
            same = dimensions[d] == lq.dims[d];
        if (!same) {
            char mine[80] = "", theirs[80] = "";
            for (int d = 0; d < ndimensions; d++)
                snprintf(mine + strlen(mine), sizeof mine - strlen(mine), "%s%d", d ? "x" : "", dimensions[d]);
            for (int d = 0; d < lq.ndims; d++)
                snprintf(theirs + strlen(theirs), sizeof theirs - strlen(theirs), "%s%d", d ? "x" : "", lq.dims[d]);
            lq_seterr(LQCD_ERR_TOPOLOGY, "declareTopology: %s, but another core declared %s", mine, theirs);
        }
        ok = same;
    }
    pthread_mutex_unlock(&lq.topo_lock);
    if (!ok)
        return;
    int rank = lq.rank_of_pid[pid], coords[LQCD_MAX_DIMS];
    for (int d = 0; d < lq.ndims; d++) {
        coords[d] = rank % lq.dims[d];
        rank /= lq.dims[d];
    }
    memcpy(c->coords, coords, sizeof coords);
    for (int d = 0; d < lq.ndims; d++) {
        for (int s = 0; s < 2; s++) {
            coords[d] = c->coords[d] + (s ? -1 : 1);
            c->nb[2 * d + s] = getGridHost(coords);
        }
        coords[d] = c->coords[d];
    }
    c->topo = 1;
}

int getGridCoordinates(int coords[])
{
    struct lqcd_core *c = lq_core_of_caller("getGridCoordinates", 1);
    if (!c)
        return -1;
    if (!coords) {
        lq_seterr(LQCD_ERR_ARG, "getGridCoordinates: NULL array");
        return -1;
    }
    if (!c->topo) {
        lq_seterr(LQCD_ERR_NO_TOPOLOGY, "getGridCoordinates: no topology declared on this core");
        return -1;
    }
    if (!lq_check_memory("getGridCoordinates", "the array", coords, (size_t)lq.ndims * sizeof(int), 1))
        return -1;
    memcpy(coords, c->coords, (size_t)lq.ndims * sizeof(int));
    return 0;
}

int getGridHost(const int coords[])
{
    if (!coords) {
        lq_seterr(LQCD_ERR_ARG, "getGridHost: NULL array");
        return -1;
    }
    if (!lq.cores || !lq.topo) {
        lq_seterr(LQCD_ERR_NO_TOPOLOGY, "getGridHost: no topology declared");
        return -1;
    }
    if (!lq_check_memory("getGridHost", "the array", coords, (size_t)lq.ndims * sizeof(int), 0))
        return -1;
    int rank = 0;
    for (int d = lq.ndims - 1; d >= 0; d--) {
        int x = ((coords[d] % lq.dims[d]) + lq.dims[d]) % lq.dims[d];
        rank = rank * lq.dims[d] + x;
    }
    return lq.pid_of_rank[rank];
}
