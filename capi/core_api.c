/*
 * Core-side calls answered in C: identity, clocks, synchronisation loops,
 * output and abort. The superstep's work is decided by the Go engine
 * (goSyncStep); this file only blocks between its steps.
 */
#include "shim.h"
#include "reqlog.h"

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

/* exchange_flags[s % 2] == s + 1: some core recorded a request in
 * superstep s. A value per parity, so a fast core already in superstep
 * s + 1 cannot disturb a slow one still reading s. */
static _Atomic int32_t exchange_flags[2];

void sync_reset(void)
{
    atomic_store(&exchange_flags[0], 0);
    atomic_store(&exchange_flags[1], 0);
}

/*
 * bsp_sync runs the engine's steps (goSyncStep) with a barrier between
 * them. Fast path: when no core recorded a request in this superstep, a
 * core with an empty queue needs the engine not at all, and the sync is
 * one barrier with no call into Go (2x cheaper at 16 cores, bench/core).
 * The engine stays the authority: whenever any core recorded something,
 * every core takes its steps.
 */
void bsp_sync(void)
{
    struct ebsp_core *self = ebsp_self;
    if (!self)
        return;
    reqlog_drain(self); /* the engine parses the recorded requests first */
    int32_t s = atomic_load((_Atomic int32_t *)&self->superstep);
    int needs_engine = self->requests_pending || self->queue_pending || ebsp_stats_on;
    int step = 1;
    if (needs_engine)
        step = goSyncStep(self->pid, 0);
    if (self->requests_pending)
        atomic_store(&exchange_flags[s & 1], s + 1);
    self->requests_pending = 0;
    if (step > 0 && sched_barrier(WHERE_SYNC) == 0) {
        if (!needs_engine && atomic_load(&exchange_flags[s & 1]) != s + 1) {
            atomic_fetch_add((_Atomic int32_t *)&self->superstep, 1);
        } else {
            int exchanged = 0;
            for (; (step = goSyncStep(self->pid, step)) > 0; exchanged = 1)
                if (sched_barrier(WHERE_SYNC) < 0)
                    break;
            self->queue_pending = exchanged;
        }
    }
    sched_leave_if_stopped();
}

void ebsp_barrier(void)
{
    if (!ebsp_self)
        return;
    sched_barrier(WHERE_BARRIER);
    sched_leave_if_stopped();
}

void ebsp_host_sync(void)
{
    if (!ebsp_self)
        return;
    sched_host_sync();
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
    goCoreAbort(pid, text);
    sched_stop();
    sched_leave_if_stopped();
}
