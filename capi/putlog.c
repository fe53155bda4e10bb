/*
 * The put log of direct puts (putlog.h): entries of a header and the
 * source bytes, padded to 8, written in issue order.
 */
#include "putlog.h"

#include <stdlib.h>

enum { PUTLOG_MIN = 4096 };

/* Asks the engine once per superstep; remembers its answer in stamp. */
static int allowed(struct ebsp_core *self)
{
    struct ebsp_putlog *log = &self->putlog;
    int32_t now = atomic_load((_Atomic int32_t *)&self->superstep) + 1;
    if (log->stamp == now)
        return 1;
    if (log->stamp == -now)
        return 0;
    int64_t budget = 0;
    int ok = goBeginDirectPuts(self->pid, &budget);
    log->stamp = ok ? now : -now;
    log->budget = budget;
    return ok;
}

__attribute__((noinline)) static int grow(struct ebsp_putlog *log, size_t size)
{
    size_t cap = log->cap ? log->cap : PUTLOG_MIN;
    while (cap < log->used + size)
        cap *= 2;
    unsigned char *buf = realloc(log->buf, cap);
    if (!buf)
        return 0;
    log->buf = buf;
    log->cap = cap;
    return 1;
}

int putlog_put(struct ebsp_core *self, int pid, const void *src, void *dst, int offset, int nbytes)
{
    if (!src || !allowed(self))
        return PUT_ELSEWHERE;
    char *remote = hp_remote(self, pid, dst, offset, nbytes);
    if (!remote)
        return PUT_ELSEWHERE;
    struct ebsp_putlog *log = &self->putlog;
    size_t size = put_entry_size((size_t)nbytes);
    if ((int64_t)size > log->budget) {
        goDirectPutsExhausted(self->pid);
        return PUT_STOPPED;
    }
    if (log->used + size > log->cap && !grow(log, size))
        return PUT_ELSEWHERE;
    struct put_entry *e = (struct put_entry *)(log->buf + log->used);
    log->used += size;
    log->budget -= (int64_t)size;
    e->target = remote + offset;
    e->nbytes = (size_t)nbytes;
    copy_small(e + 1, src, (size_t)nbytes);
    return PUT_LOGGED;
}

void putlog_write(void)
{
    struct ebsp_core *self = ebsp_self;
    if (!self)
        return;
    struct ebsp_putlog *log = &self->putlog;
    for (size_t at = 0; at < log->used;) {
        struct put_entry *e = (struct put_entry *)(log->buf + at);
        copy_small(e->target, e + 1, e->nbytes);
        at += put_entry_size(e->nbytes);
    }
    log->used = 0;
}

void putlog_free_all(struct ebsp_core *cores, int n)
{
    for (int i = 0; i < n; i++) {
        free(cores[i].putlog.buf);
        cores[i].putlog = (struct ebsp_putlog){0};
    }
}
