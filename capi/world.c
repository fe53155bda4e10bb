/*
 * The MPI world's hooks: a barrier round completed with the other ranks,
 * and MPI ended when rank 0 exits (capi/world.go).
 */
#include "shim.h"

#include <stdlib.h>

int ebsp_world_ranks, ebsp_world_rank, ebsp_world_first, ebsp_world_count;

static int world_round(int kind)
{
    return ebsp_world_ranks > 1 ? goWorldRound(kind) : 0;
}

static const struct sched_hooks world_hooks = {.round = world_round};

static void world_exit(void)
{
    if (ebsp_world_ranks > 1)
        goWorldFinalize();
}

__attribute__((constructor)) static void world_register(void)
{
    sched_add_hooks(&world_hooks);
    atexit(world_exit);
}
