/*
 * What the cores of every BSPlib section share, whether the section is
 * the program's (bsplib.c) or nested in a core of another (nested.c): a
 * core's bsp_begin, its report of a misuse, pid 0's way out of a stopped
 * section, and the flag that the library ends the program.
 */
#define _GNU_SOURCE
#include "../../capi/faces.h"
#include "bsplib.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

_Atomic int bl_exiting;

char *bl_vformat(const char *format, va_list ap)
{
    va_list copy;
    va_copy(copy, ap);
    int len = vsnprintf(NULL, 0, format, copy);
    va_end(copy);
    char *text = malloc(len > 0 ? (size_t)len + 1 : 1);
    if (text) {
        if (len > 0)
            vsnprintf(text, (size_t)len + 1, format, ap);
        else
            text[0] = '\0';
    }
    return text;
}

void bl_misuse(struct ebsp_core *self, const char *call, const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    char *what = bl_vformat(format, ap);
    va_end(ap);
    goBsplibMisuse(self->pid, (char *)call, what ? what : (char *)format);
    free(what);
    sched_leave_if_stopped();
}

void bl_start_core(struct ebsp_core *self)
{
    self->begin_ns = self->last_raw_ns = ebsp_now_ns();
    hp_forget(self);
    goBsplibCoreBegin(self->pid);
    self->in_section = 1;
    sched_leave_if_stopped();
}

void bl_owner_leave(void)
{
    ebsp_self->in_section = 0;
    sched_leave_forever();
}
