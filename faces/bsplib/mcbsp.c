/*
 * MulticoreBSP for C's machine-control extensions (include/bsp.h): the
 * settings a program makes before bsp_begin. Only the maximum number of
 * threads acts here (bsplib.c asks mcbsp_thread_cap); the rest is kept
 * for the getters. One lock guards them: a program may call these from any
 * thread, a core's included.
 */
#include "bsplib.h"

#define BSPLIB_NO_NAME_MAP
#include <bsp.h>

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t mc_lock = PTHREAD_MUTEX_INITIALIZER;

static struct {
    size_t max_threads; /* 0: the cores of the mesh */
    enum mcbsp_affinity_mode affinity;
    size_t cores; /* 0: the cores of the mesh */
    size_t threads_per_core, unused_threads_per_core;
    enum mcbsp_thread_numbering numbering;
    size_t *pinning, pinning_len;
    size_t *reserved, reserved_len;
} mc = {.affinity = SCATTER, .threads_per_core = 1, .numbering = CONSECUTIVE};

/* A copy of n entries of from, or NULL (none, or no memory). */
static size_t *copy_of(const size_t *from, size_t n)
{
    if (!from || n == 0)
        return NULL;
    size_t *to = malloc(n * sizeof *to);
    if (to)
        memcpy(to, from, n * sizeof *to);
    return to;
}

/* Whether the array `what` of n entries at from cannot be read (a length beyond
 * any memory, or no memory there): reported naming call, on the core that
 * calls it (the run stops, the core leaves) or, as for the other misuse
 * outside a section, on stderr, ending the program with status 1. */
static int array_refused(const char *call, const char *what, const size_t *from, size_t n)
{
    if (!from || n == 0)
        return 0;
    size_t bytes = n <= SIZE_MAX / sizeof *from ? n * sizeof *from : SIZE_MAX;
    size_t good = user_memory_good(from, bytes, 0);
    if (good == bytes)
        return 0;
    struct ebsp_core *self = ebsp_self;
    goBadUserMemory(self ? self->pid : -1, (char *)call, (char *)what, (uintptr_t)from, bytes, good, 0);
    if (!self)
        exit(EXIT_FAILURE);
    sched_leave_if_stopped();
    return 1;
}

/* Replaces the array *slot (of *len entries) with a copy of from. */
static void keep_copy(size_t **slot, size_t *len, const size_t *from, size_t n)
{
    size_t *copy = copy_of(from, n);
    free(*slot);
    *slot = copy;
    *len = copy ? n : 0;
}

size_t mcbsp_thread_cap(void)
{
    pthread_mutex_lock(&mc_lock);
    size_t cap = mc.max_threads;
    pthread_mutex_unlock(&mc_lock);
    return cap;
}

#define SETTER(name, type, field)        \
    void name(type value)                \
    {                                    \
        pthread_mutex_lock(&mc_lock);    \
        mc.field = value;                \
        pthread_mutex_unlock(&mc_lock);  \
    }

#define GETTER(name, type, field)        \
    type name(void)                      \
    {                                    \
        pthread_mutex_lock(&mc_lock);    \
        type value = mc.field;           \
        pthread_mutex_unlock(&mc_lock);  \
        return value;                    \
    }

SETTER(mcbsp_set_maximum_threads, size_t, max_threads)
SETTER(mcbsp_set_affinity_mode, enum mcbsp_affinity_mode, affinity)
SETTER(mcbsp_set_available_cores, size_t, cores)
SETTER(mcbsp_set_threads_per_core, size_t, threads_per_core)
SETTER(mcbsp_set_unused_threads_per_core, size_t, unused_threads_per_core)
SETTER(mcbsp_set_thread_numbering, enum mcbsp_thread_numbering, numbering)
GETTER(mcbsp_get_affinity_mode, enum mcbsp_affinity_mode, affinity)
GETTER(mcbsp_get_threads_per_core, size_t, threads_per_core)
GETTER(mcbsp_get_unused_threads_per_core, size_t, unused_threads_per_core)
GETTER(mcbsp_get_thread_numbering, enum mcbsp_thread_numbering, numbering)
GETTER(mcbsp_get_reserved_cores_number, size_t, reserved_len)

void mcbsp_set_pinning(const size_t *pinning, size_t length)
{
    if (array_refused("mcbsp_set_pinning", "the pinning", pinning, length))
        return;
    pthread_mutex_lock(&mc_lock);
    keep_copy(&mc.pinning, &mc.pinning_len, pinning, length);
    mc.max_threads = length;
    if (mc.pinning)
        mc.affinity = MANUAL;
    pthread_mutex_unlock(&mc_lock);
}

void mcbsp_set_reserved_cores(const size_t *reserved, size_t length)
{
    if (array_refused("mcbsp_set_reserved_cores", "the reserved cores", reserved, length))
        return;
    pthread_mutex_lock(&mc_lock);
    keep_copy(&mc.reserved, &mc.reserved_len, reserved, length);
    pthread_mutex_unlock(&mc_lock);
}

/* A count that defaults to the cores of the mesh when 0. */
static size_t or_mesh(size_t n)
{
    return n ? n : (size_t)goBsplibAvailable();
}

size_t mcbsp_get_maximum_threads(void)
{
    return or_mesh(mcbsp_thread_cap());
}

size_t mcbsp_get_available_cores(void)
{
    pthread_mutex_lock(&mc_lock);
    size_t n = mc.cores;
    pthread_mutex_unlock(&mc_lock);
    return or_mesh(n);
}

size_t *mcbsp_get_pinning(void)
{
    pthread_mutex_lock(&mc_lock);
    size_t *copy = copy_of(mc.pinning, mc.pinning_len);
    pthread_mutex_unlock(&mc_lock);
    return copy;
}

size_t *mcbsp_get_reserved_cores(void)
{
    pthread_mutex_lock(&mc_lock);
    size_t *copy = copy_of(mc.reserved, mc.reserved_len);
    pthread_mutex_unlock(&mc_lock);
    return copy;
}
