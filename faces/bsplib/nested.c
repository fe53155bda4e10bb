/*
 * Nested SPMD sections (MulticoreBSP for C 2.0's hierarchical bsp_begin):
 * a core of a running section calls bsp_init(spmd, ...) and then
 * bsp_begin(P); it becomes pid 0 of a section of P cores of its own, whose
 * P-1 other cores run spmd, and every BSPlib call it makes refers to that
 * section (bsp_pid, bsp_nprocs, bsp_sync, registrations, DRMA, messages)
 * until its bsp_end, after which it is the same core of the section
 * around again, with that section's state as it left it. Several cores
 * may run nested sections at once, and a core of a nested section may
 * nest again.
 *
 * A nested section has its own machine (capi/nested.go), its own C
 * section (struct ebsp_section: nprocs, the engine's flags, the core
 * table) and its own run of the scheduler (sched_nest), whose cores are
 * threads: pid 0 stays what the calling core is (under coroutines a
 * coroutine, whose worker waits with it in the nested section's barriers
 * while the monitor's extra workers take the other cores queued there),
 * so it keeps the caller's thread identity (pthread_self, thread-local
 * variables), as on MulticoreBSP. A monitor thread watches the run (the
 * watchdog); a stopped nested section ends the program, as a stopped
 * section does.
 */
#define _GNU_SOURCE
#include "../../capi/faces.h"
#include "bsplib.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

/* A nested section, reached from its C section (face). */
struct nest {
    struct ebsp_section section;
    void (*spmd)(void);            /* what its other cores run */
    struct ebsp_core *outer;       /* pid 0's core in the section around */
    struct sched_run *run;
    pthread_t monitor;
};

/* bsp_init's SPMD function for the next bsp_begin of this core, which
 * MulticoreBSP keeps per thread: thread-local, which is per core under
 * either scheduler. */
static _Thread_local void (*next_spmd)(void);

void bl_nest_init(struct ebsp_core *self, void (*spmd)(void))
{
    if (!spmd)
        bl_misuse(self, "bsp_init", "the SPMD function is NULL");
    else if (ebsp_world_ranks > 1)
        bl_misuse(self, "bsp_init", "called inside an SPMD section under mpirun: nested SPMD sections run in one "
                  "process only");
    else
        next_spmd = spmd;
}

int bl_nest_pending(void)
{
    return next_spmd != NULL;
}

/* What the other cores of a nested section run. */
static int nest_core_entry(void)
{
    struct nest *nest = ebsp_self->section->face;
    nest->spmd();
    return 0; /* returned without bsp_end: the scheduler reports it if others wait */
}

/* A stopped nested section ends the program once its cores left, with
 * its report; the section around is stopped with it. */
static void *nest_monitor(void *arg)
{
    struct nest *nest = arg;
    ebsp_thread_section = &nest->section;
    sched_enter(nest->run);
    sched_host_loop();
    if (!sched_stopped())
        return NULL;
    atomic_store(&bl_exiting, 1);
    sched_join();
    char *report = goBsplibNestFinish(&nest->section);
    if (report) {
        out_stderr(report);
        free(report);
    }
    out_flush();
    exit(EXIT_FAILURE);
}

void bl_nest_begin(struct ebsp_core *outer, long long P, const void *caller)
{
    void (*spmd)(void) = next_spmd;
    next_spmd = NULL;
    size_t cap = mcbsp_thread_cap();
    if (cap && P > 0 && (unsigned long long)P > cap) {
        bl_misuse(outer, "bsp_begin", "%lld cores requested for a nested section; mcbsp_set_maximum_threads allows 1..%zu",
                  P, cap);
        return;
    }
    struct nest *nest = calloc(1, sizeof *nest);
    if (!nest) {
        bl_misuse(outer, "bsp_begin", "out of memory for a nested section");
        return;
    }
    nest->section.face = nest;
    nest->spmd = spmd;
    char *why = NULL;
    struct ebsp_core *cores = goBsplibNestBegin(P, &nest->section, &why);
    if (!cores) {
        bl_misuse(outer, "bsp_begin", "%s", why ? why : "the nested section could not start");
        free(why);
        free(nest);
        return;
    }
    int n = nest->section.nprocs;
    nest->outer = outer;
    nest->run = sched_nest();
    if (!nest->run) {
        bl_misuse(outer, "bsp_begin", "out of memory for a nested section");
        return; /* the section stays unfinished: the program ends with the stop */
    }
    const void *spmd_base = object_base((const void *)spmd);
    for (int i = 1; i < n; i++) {
        cores[i].sched.entry = nest_core_entry;
        cores[i].sched.can_unwind = 1;
        cores[i].kernel_base = spmd_base; /* the watchdog unwinds a core looping in there */
    }
    struct ebsp_core *owner = &cores[0];
    owner->sched.leave = bl_owner_leave;
    owner->kernel_base = object_base(caller);
    sched_adopt(&owner->sched);
    bl_start_core(owner);
    cores_start(owner, n, 1);
    if (pthread_create(&nest->monitor, NULL, nest_monitor, nest) != 0) {
        /* without its monitor a stop could not end the program */
        out_stderr("ebsp: ERROR: bsp_begin: could not start a thread for a nested section; lower the core count or "
                   "EBSP_STACK_KB\n");
        atomic_store(&bl_exiting, 1);
        out_flush();
        exit(EXIT_FAILURE);
    }
}

void bl_nest_finish(struct ebsp_core *owner)
{
    struct nest *nest = owner->section->face;
    struct ebsp_core *cores = nest->section.cores;
    int n = nest->section.nprocs;
    sched_release();
    pthread_join(nest->monitor, NULL); /* it ends the program if the run was stopped */
    sched_join();
    reqlog_free_all(cores, n);
    direct_free_all(cores, n);
    hp_free_all(cores, n);
    free(goBsplibNestFinish(&nest->section)); /* no report: the run was not stopped */
    sched_self = &nest->outer->sched;
    sched_unnest();
    cores_free(cores);
    free(nest);
}
