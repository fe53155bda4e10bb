/*
 * Core-side calls answered in C: identity, clocks, synchronisation loops,
 * output and abort. The superstep's work is decided by the Go engine
 * (goSyncStep); this file only blocks between its steps.
 */
#include "shim.h"
#include "reqlog.h"
#include "putlog.h"

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

int32_t ebsp_sync_flags[2];
int32_t ebsp_put_flags[2];

/* The end of bsp_sync's fast path: when some core made direct puts (and
 * nobody needs the engine), each core writes its own and waits for the
 * others. 0 when the run was stopped meanwhile. */
static int fast_sync_puts(int32_t s)
{
    if (atomic_load((_Atomic int32_t *)&ebsp_put_flags[s & 1]) != s + 1)
        return 1;
    putlog_write();
    return sched_barrier(WHERE_SYNC) == 0;
}

/*
 * bsp_sync runs the engine's steps (goSyncStep) with a barrier between
 * them; the loop is runtime.Core.Sync's, here in C because a core must not
 * wait at a barrier with a Go frame on its stack (coroutine cores).
 * Fast path: a core whose next sync needs nothing of the engine (its
 * sync_pending mirror is clear) only waits at the barrier, and when the
 * engine's flags then say that nobody communicated, the sync is over with
 * no call into Go (2x cheaper at 16 cores, bench/core) -- after the direct
 * puts (putlog.c) and a second barrier, if some core made any. The engine
 * decides the flags; this only reads them.
 */
void bsp_sync(void)
{
    struct ebsp_core *self = ebsp_self;
    if (!self)
        return;
    reqlog_drain(self); /* the engine parses the recorded requests first */
    int32_t s = atomic_load((_Atomic int32_t *)&self->superstep);
    int engine = atomic_load((_Atomic int32_t *)&self->sync_pending) != 0;
    int step = engine ? goSyncStep(self->pid, 0) : 1;
    if (step > 0 && sched_barrier(WHERE_SYNC) == 0) {
        if (!engine && atomic_load((_Atomic int32_t *)&ebsp_sync_flags[s & 1]) != s + 1) {
            if (fast_sync_puts(s))
                atomic_fetch_add((_Atomic int32_t *)&self->superstep, 1);
        } else
            while ((step = goSyncStep(self->pid, step)) > 0 && sched_barrier(WHERE_SYNC) == 0)
                ;
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
