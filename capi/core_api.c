/*
 * Core-side calls answered in C: identity, clocks, synchronisation loops,
 * output and abort. The superstep's work is decided by the Go engine
 * (goSyncStep); this file only blocks between its steps.
 */
#include "shim.h"

#include <e_bsp.h>
#include <stdarg.h>
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

void bsp_sync(void)
{
    struct ebsp_core *self = ebsp_self;
    if (!self)
        return;
    for (int step = 0; (step = goSyncStep(self->pid, step)) > 0;)
        if (sched_barrier(WHERE_SYNC) < 0)
            break;
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
