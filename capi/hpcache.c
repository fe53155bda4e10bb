/*
 * bsp_hpput, bsp_hpget and bsp_direct_get copy at once, so their cost is a
 * call into Go (~150-250 ns) plus a registration lookup, for what is often
 * an 8-byte copy. The engine's answer to "where is core t's copy of this
 * registered variable, and how big is it" cannot change before the next
 * bsp_sync, so each core caches it here and copies in C (bsp_put and
 * bsp_get too, direct.h). Anything unusual
 * (a miss the engine rejects, bytes out of range, negative sizes) goes to
 * the engine, which reports it exactly as before.
 */
#include "shim.h"
#include "comm.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void hp_forget(struct ebsp_core *self)
{
    if (self->hp_cache)
        memset(self->hp_cache, 0, (self->hp_mask + (size_t)1) * sizeof *self->hp_cache);
}

void hp_free_all(struct ebsp_core *cores, int n)
{
    for (int i = 0; i < n; i++) {
        free(cores[i].hp_cache);
        cores[i].hp_cache = NULL;
        cores[i].hp_mask = 0;
    }
}

/* Makes the core's lines: HP_LINES, or as many as the run's cores. */
static int make_lines(struct ebsp_core *self)
{
    uint32_t n = HP_LINES;
    while (n < (uint32_t)ebsp_active_nprocs)
        n *= 2;
    self->hp_cache = calloc(n, sizeof *self->hp_cache);
    self->hp_mask = self->hp_cache ? n - 1 : 0;
    return self->hp_cache != NULL;
}

/* Whether the nbytes at offset of line's copy can be read (write:
 * written): a look at memory (user_memory_good) unless they lie in the
 * bytes found so before. The pages looked at count as found, and join the
 * bytes found before when the two touch; else they replace them (a loop of
 * puts into one variable looks at each page once). */
static int checked(struct hp_line *line, int offset, int nbytes, int write)
{
    int32_t *good = line->good[write != 0];
    if (offset >= good[0] && (int64_t)offset + nbytes <= good[1])
        return 1;
    char *p = line->remote + offset;
    if (user_memory_good(p, (size_t)nbytes, write) < (size_t)nbytes)
        return 0;
    uintptr_t base = (uintptr_t)line->remote, page = 4096;
    uintptr_t first = ((uintptr_t)p & ~(page - 1)), end = (((uintptr_t)p + (size_t)nbytes - 1) | (page - 1)) + 1;
    int64_t lo = first < base ? 0 : (int64_t)(first - base);
    int64_t hi = end < (uintptr_t)p || end - base > (uintptr_t)line->size ? line->size : (int64_t)(end - base);
    if (lo <= good[1] && hi >= good[0] && good[1] > good[0]) {
        lo = lo < good[0] ? lo : good[0];
        hi = hi > good[1] ? hi : good[1];
    }
    good[0] = (int32_t)lo;
    good[1] = (int32_t)hi;
    return 1;
}

char *hp_remote(struct ebsp_core *self, int target, const void *variable, int offset, int nbytes, int write)
{
    if (nbytes <= 0 || offset < 0 || !world_local(target))
        return NULL;
    if (user_pointer_small_value(variable))
        return NULL; /* never registered, and not for Go (core.h): the engine's path says so */
    if (!self->hp_cache && !make_lines(self))
        return NULL;
    int32_t stamp = superstep_stamp(self);
    struct hp_line *line = &self->hp_cache[hp_line_of(self, variable, target)];
    if (line->stamp != stamp || line->variable != variable || line->target != target) {
        void *remote = NULL;
        int size = 0;
        if (!goRemoteVariable(self->pid, target, (void *)variable, &remote, &size))
            return NULL;
        *line = (struct hp_line){.variable = variable, .remote = remote, .target = target, .size = size, .stamp = stamp};
    }
    if ((int64_t)offset + nbytes > line->size || !checked(line, offset, nbytes, write))
        return NULL; /* the engine's path: it reports memory that is not there */
    return line->remote;
}
