/*
 * Standard input of the nodes other than 0 (node_load.c's copies of the
 * program): nothing to read, as under mpirun, where only rank 0 has the
 * job's standard input. A copy reads the process's standard input two
 * ways, and both are turned to one stream on /dev/null:
 *   - through its own `stdin` (fgets(line, n, stdin)): the executable's
 *     copy relocation of libc's variable, a slot of the copy's own;
 *   - through the libc calls that read libc's stdin themselves (scanf,
 *     vscanf, getchar): their slots in the copy's global offset table are
 *     bound to readers of that stream instead (capi/got_bind.h: x86-64 and
 *     i386; elsewhere they still read the process's standard input).
 */
#define _GNU_SOURCE
#include "qmp_face.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>

static FILE *nothing; /* /dev/null, for reading; NULL if it cannot be opened */
static pthread_once_t nothing_once = PTHREAD_ONCE_INIT;

static void open_nothing(void)
{
    nothing = fopen("/dev/null", "r");
}

static int quiet_vscanf(const char *format, va_list ap)
{
    return vfscanf(nothing, format, ap);
}

static int quiet_scanf(const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    int r = vfscanf(nothing, format, ap);
    va_end(ap);
    return r;
}

static int quiet_getchar(void)
{
    return fgetc(nothing);
}

/* The calls that read libc's stdin, by the names a program's references
 * to them have (C99 and C23 scanf are other symbols). */
static const struct got_binding readers[] = {
    {"scanf", (void *)quiet_scanf},          {"__isoc99_scanf", (void *)quiet_scanf},
    {"__isoc23_scanf", (void *)quiet_scanf}, {"vscanf", (void *)quiet_vscanf},
    {"__isoc99_vscanf", (void *)quiet_vscanf}, {"__isoc23_vscanf", (void *)quiet_vscanf},
    {"getchar", (void *)quiet_getchar},      {"getchar_unlocked", (void *)quiet_getchar},
};

void qmp_node_quiet_stdin(void *h)
{
    pthread_once(&nothing_once, open_nothing);
    if (!nothing)
        return;
    FILE **in = dlsym(h, "stdin");
    if (in && in != &stdin)
        *in = nothing;
    got_bind(h, readers, sizeof readers / sizeof readers[0]);
}
