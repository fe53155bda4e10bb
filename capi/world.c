/*
 * The MPI world's hooks: a barrier round completed with the other ranks
 * (world/mpi/mpi.c; no call into Go when no core has records to send),
 * and MPI ended when a rank exits (world/mpi/job.go), which needs the exit
 * status: on_exit, not atexit.
 */
#define _DEFAULT_SOURCE /* on_exit, also under -std=c99 (make test-shim) */
#include "shim.h"
#include "../world/mpi/mpi.h"

#include <stdlib.h>

int ebsp_world_ranks, ebsp_world_rank, ebsp_world_per_rank, ebsp_world_first, ebsp_world_count, ebsp_world_section;

static int world_round(int kind)
{
    if (!ebsp_world_section)
        return 0;
    struct ebsp_core *self = ebsp_self;
    int r = mpiw_round(kind, self ? self->superstep : 0);
    if (r == MPIW_DIVERGED)
        goWorldDiverged();
    else if (r != 0 && r != MPIW_STOPPED)
        goWorldFailed(r == MPIW_UNPACKED);
    return r == 0 ? 0 : -1;
}

static const struct sched_hooks world_hooks = {.round = world_round};

static void world_exit(int status, void *arg)
{
    (void)arg;
    if (ebsp_world_ranks > 1)
        goWorldFinalize(status);
}

/* A core of this rank crashed (or ended its thread): the job ends with
 * status as after bsp_abort, every rank finalized (mpiw_end_crashed). */
static void world_crashed(int status)
{
    if (ebsp_world_ranks > 1 && ebsp_world_section)
        mpiw_end_crashed(status);
}

__attribute__((constructor)) static void world_register(void)
{
    faults_on_core_crash(world_crashed);
    sched_add_hooks(&world_hooks);
    mpiw_stop_check(sched_stopped);
    mpiw_on_end(sched_stop); /* another rank ends the job: the cores leave, quietly */
    on_exit(world_exit, NULL);
}
