/*
 * Core-side calls answered in C: identity, clocks, synchronisation loops,
 * output and abort. The superstep's work is decided by the Go engine
 * (goSyncStep); this file only blocks between its steps.
 */
#include "../../capi/faces.h"

#include <errno.h>

#include <e_bsp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>

int bsp_pid(void)
{
    struct ebsp_core *self = ebsp_self;
    return self ? self->pid : -1;
}

float bsp_time(void)
{
    struct ebsp_core *self = ebsp_self;
    if (!self)
        return 0.0f;
    return (float)((double)(ebsp_now_ns() - self->begin_ns) * 1e-9);
}

float ebsp_host_time(void)
{
    return bsp_time();
}

unsigned int ebsp_raw_time(void)
{
    struct ebsp_core *self = ebsp_self;
    if (!self)
        return 0;
    uint64_t now = ebsp_now_ns();
    uint64_t elapsed = now - self->last_raw_ns;
    self->last_raw_ns = now;
    return (unsigned int)(elapsed * EPIPHANY_CLOCK_MHZ / 1000u);
}

static int flagged(const int32_t *flags, int32_t s)
{
    return atomic_load((_Atomic int32_t *)&flags[s & 1]) == s + 1;
}

/* The engine's plan of a sync of section in superstep s in which nobody
 * communicated but by direct requests (engine_direct_plan: which steps the
 * direct gets and puts take). */
static const struct engine_plan_step *direct_plan(const struct ebsp_section *section, int32_t s)
{
    int f = (flagged(section->get_flags, s) ? PLAN_GETS : 0) | (flagged(section->put_flags, s) ? PLAN_PUTS : 0);
    return engine_direct_plan[f];
}

/* Runs step of plan on the calling core and returns the next step. A core
 * runs a plan only when the engine holds nothing of it in this superstep,
 * so the engine's end of the superstep has nothing to do. */
static int run_plan_step(const struct engine_plan_step *plan, int step)
{
    static void (*const actions[])(void) = {
        [ACTION_READ_GETS] = direct_read_gets,
        [ACTION_WRITE_GETS] = direct_write_gets,
        [ACTION_WRITE_PUTS] = direct_write_puts,
        [ACTION_END] = NULL, /* ACTION_NONE too */
    };
    void (*action)(void) = actions[plan[step].action];
    if (action)
        action();
    return plan[step].next;
}

/* The barrier before step of the engine's sync (engine/superstep.go):
 * direct puts and gets, and the end of the superstep, touch memory of
 * this process only (direct requests reach only its cores), so they need
 * no round with other processes. */
static int step_barrier(int step)
{
    return step >= STEP_FIRST_LOCAL ? sched_barrier_local(WHERE_SYNC) : sched_barrier(WHERE_SYNC);
}

/*
 * bsp_sync runs the engine's steps with a barrier between them, and when
 * they are over advances the superstep counter (the one place that does);
 * the one loop of the sync, in C because a core must not wait at a
 * barrier with a Go frame on its stack (coroutine cores; the engine's tests
 * drive the same steps from Go, engine/driver_test.go).
 * A step is the engine's (goSyncStep), or, when this core's next sync
 * needs nothing of the engine (its sync_pending mirror is clear) and the
 * engine's flags then say that nobody communicated, a step of the engine's
 * plan for that case (engine_direct_plan: the direct gets and puts,
 * direct.h), which needs no call into Go (2x cheaper at 16 cores,
 * bench/core). The engine decides the flags and the plan; this only reads
 * them.
 */
void bsp_sync(void)
{
    struct ebsp_core *self = ebsp_self;
    if (!self)
        return;
    int saved_errno = errno; /* a superstep's end leaves the core's errno as it was */
    reqlog_drain(self); /* the engine parses the recorded requests first */
    int32_t s = atomic_load((_Atomic int32_t *)&self->superstep);
    int engine = atomic_load((_Atomic int32_t *)&self->sync_pending) != 0;
    int step = engine ? goSyncStep(self->pid, STEP_FINISH) : STEP_PHASE_A;
    if (step > 0 && sched_barrier(WHERE_SYNC) == 0) {
        if (!engine && !flagged(self->section->sync_flags, s)) {
            const struct engine_plan_step *plan = direct_plan(self->section, s);
            while ((step = run_plan_step(plan, step)) > 0 && step_barrier(step) == 0)
                ;
        } else {
            while ((step = goSyncStep(self->pid, step)) > 0 && step_barrier(step) == 0)
                ;
        }
        if (step == STEP_OVER) /* only the core itself writes it: no locked add */
            atomic_store_explicit((_Atomic int32_t *)&self->superstep, s + 1, memory_order_release);
    }
    sched_leave_if_stopped();
    errno = saved_errno;
}

void ebsp_barrier(void)
{
    if (!ebsp_self)
        return;
    sched_barrier(WHERE_BARRIER);
    sched_leave_if_stopped();
}

void (*ebsp_sync_cb)(void);
void (*ebsp_end_cb)(void);

void ebsp_host_sync(void)
{
    if (!ebsp_self)
        return;
    sched_host_sync(ebsp_sync_cb, "the host's sync callback");
    sched_leave_if_stopped();
}

/* The board formatted a core's message into a 128-byte buffer, so a line
 * shows at most 127 characters of it. */
enum { MESSAGE_MAX = 128 };

/* Prints a core's message in its place: the requests it logged before are
 * parsed first, so that a line the engine prints about one of them (the
 * board printed it at the call) comes before this one. */
static void print_message(struct ebsp_core *self, const char *format, va_list ap)
{
    char text[MESSAGE_MAX];
    vsnprintf(text, sizeof text, format, ap);
    if (self && !sched_stopped())
        reqlog_drain(self);
    out_core_line(self ? self->pid : -1, text);
}


void ebsp_message(const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    print_message(ebsp_self, format, ap);
    va_end(ap);
}

void bsp_abort(const char *format, ...)
{
    char text[MESSAGE_MAX];
    va_list ap;
    va_start(ap, format);
    vsnprintf(text, sizeof text, format, ap);
    va_end(ap);
    int pid = bsp_pid();
    if (ebsp_self && !sched_stopped())
        reqlog_drain(ebsp_self);
    out_core_line(pid, text);
    goCoreAbort(pid, text); /* stops the run */
    sched_leave_if_stopped();
}
