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
#include <stdlib.h>

enum { CYCLES_PER_US = 600 };

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
    return (unsigned int)(elapsed * CYCLES_PER_US / 1000u);
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
    int needs_engine = self->requests_pending || self->queue_pending;
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

/* Formats like printf into a heap string; NULL only when out of memory. */
static char *format_message(const char *format, va_list ap)
{
    va_list copy;
    va_copy(copy, ap);
    int len = vsnprintf(NULL, 0, format, copy);
    va_end(copy);
    if (len < 0)
        len = 0;
    char *text = malloc((size_t)len + 1);
    if (text)
        vsnprintf(text, (size_t)len + 1, format, ap);
    return text;
}

void ebsp_message(const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    char *text = format_message(format, ap);
    va_end(ap);
    out_core_line(bsp_pid(), text ? text : "(out of memory formatting message)");
    free(text);
}

void bsp_abort(const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    char *text = format_message(format, ap);
    va_end(ap);
    int pid = bsp_pid();
    out_core_line(pid, text ? text : "bsp_abort");
    goCoreAbort(pid, text);
    free(text);
    sched_stop();
    sched_leave_if_stopped();
}
