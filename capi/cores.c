/*
 * The table of a run's cores (shim.h, struct ebsp_core): made in C, so
 * that Go never owns memory the cores use, and handed to the scheduler as
 * its cores (cores_run, cores_start). Also the engine's report of a
 * stalled run, hooked into the scheduler.
 */
#include "shim.h"

#include <stdlib.h>

struct ebsp_section ebsp_outer_section;
__thread struct ebsp_section *ebsp_thread_section;

struct ebsp_core *cores_alloc(int n)
{
    struct ebsp_core *cores = calloc((size_t)n, sizeof *cores);
    if (cores)
        for (int i = 0; i < n; i++) {
            cores[i].pid = i;
            cores[i].rand_next = 1; /* newlib's, before any srand (kernel_libc.c) */
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
