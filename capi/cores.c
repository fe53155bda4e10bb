/*
 * The table of a run's cores (core.h, struct ebsp_core; shim.h, struct core_own): made in C, so
 * that Go never owns memory the cores use, and handed to the scheduler as
 * its cores (cores_run, cores_start). Also the engine's report of a
 * stalled run, hooked into the scheduler.
 */
#include "shim.h"

#include <stdlib.h>

struct ebsp_section ebsp_outer_section;
__thread struct ebsp_section *ebsp_thread_section;

/* The cores, then their own parts (struct core_own), in one block. */
struct ebsp_core *cores_alloc(int n)
{
    size_t own_at = (size_t)n * sizeof(struct ebsp_core);
    own_at = (own_at + _Alignof(struct core_own) - 1) & ~(_Alignof(struct core_own) - 1);
    char *block = calloc(1, own_at + (size_t)n * sizeof(struct core_own));
    if (!block)
        return NULL;
    struct ebsp_core *cores = (struct ebsp_core *)block;
    struct core_own *own = (struct core_own *)(block + own_at);
    for (int i = 0; i < n; i++) {
        cores[i].pid = i;
        cores[i].own = &own[i];
        own[i].rand_next = 1; /* newlib's, before any srand (kernel_libc.c) */
        cores[i].section = &ebsp_outer_section; /* a nested section sets its own */
    }
    return cores;
}

void cores_free(struct ebsp_core *cores)
{
    free(cores);
}

/* The engine reports a stalled run (deadlock, divergence, watchdog) with
 * every core's place and superstep. */
static const struct sched_hooks engine_hooks = {.report_stall = goReportStall};

__attribute__((constructor)) static void engine_register(void)
{
    sched_add_hooks(&engine_hooks);
}
