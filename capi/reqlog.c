/*
 * Recording of bsp_put, bsp_get and bsp_send in C (see reqlog.h). Only the
 * mechanics live here: what a request means is decided by the engine when
 * it drains the log.
 */
#define _DEFAULT_SOURCE /* posix_memalign, madvise */
#include "reqlog.h"
#include "shim.h"
#include "smallcopy.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* A payload this large costs more to copy twice (log, then the engine's
 * packed block) than a direct call into Go costs (bench/comm). */
enum { INLINE_MAX = 4096 };
/* A log starts this big and doubles: small, since a core has a direct
 * send log per destination (an all-to-all on 1024 cores makes a million). */
enum { LOG_MIN = 64 };
/* A log this full is drained rather than grown: it stays in cache, and a
 * kernel that never syncs meets the engine's memory limit (EBSP_COMM_LIMIT_MB). */
enum { DRAIN_AT = 256 << 10 };

/* 32 bytes with 64-bit pointers, 24 with 32-bit ones (make lib32). */
_Static_assert(sizeof(struct reqlog_entry) == 16 + 2 * sizeof(void *), "layout shared with engine/reqlog.go");
_Static_assert(offsetof(struct reqlog_entry, variable) == 16, "layout shared with engine/reqlog.go");
_Static_assert(offsetof(struct reqlog_entry, dst) == 16 + sizeof(void *), "layout shared with engine/reqlog.go");

static size_t pad8(size_t n) { return (n + 7) & ~(size_t)7; }

void reqlog_drain(struct ebsp_core *self)
{
    struct ebsp_bytes *log = &self->reqlog;
    if (log->used == 0)
        return;
    if (!sched_stopped()) {
        struct reg_wait w = {0};
        size_t done = 0;
        do
            done += goDrainLog(self->pid, log->buf + done, log->used - done);
        while (reg_wait_again(&w, done < log->used ? ENGINE_NOT_YET : ENGINE_DONE));
    }
    log->used = 0;
}

/* Makes room for size more bytes: drains a full log, else grows it. */
__attribute__((noinline)) static int make_room(struct ebsp_core *self, size_t size)
{
    struct ebsp_bytes *log = &self->reqlog;
    if (log->used > 0 && log->used + size > DRAIN_AT) {
        reqlog_drain(self);
        if (sched_stopped())
            return 0;
        if (size <= log->cap)
            return 1;
    }
    return bytes_reserve(log, size);
}

/* Logs of 2 MiB and more (a large put's bytes) sit on huge pages where
 * the kernel gives them (THP in madvise mode): the copy into the log and
 * the reads of it (another rank's MPI reads it with process_vm_readv,
 * which pins every page) walk one page table entry per 2 MiB, not 512. */
enum { HUGE_PAGE = 2 << 20 };

static unsigned char *grow_log(struct ebsp_bytes *b, size_t cap)
{
    if (cap < HUGE_PAGE)
        return realloc(b->buf, cap);
    void *p = NULL;
    if (posix_memalign(&p, HUGE_PAGE, cap) != 0)
        return NULL;
    madvise(p, cap, MADV_HUGEPAGE);
    if (b->buf)
        memcpy(p, b->buf, b->cap);
    free(b->buf);
    return p;
}

int bytes_reserve(struct ebsp_bytes *b, size_t size)
{
    size_t cap = b->cap ? b->cap : LOG_MIN;
    while (cap < b->used + size)
        cap *= 2;
    unsigned char *buf = grow_log(b, cap);
    if (!buf)
        return 0;
    b->buf = buf;
    b->cap = cap;
    return 1;
}

/* Takes back the last entry made (append), whose bytes could not be
 * copied from the program (copy_user): the request goes to the engine,
 * which reports it. */
static int undo_append(struct ebsp_core *self, size_t inline_bytes)
{
    self->reqlog.used -= sizeof(struct reqlog_entry) + pad8(inline_bytes);
    return 0;
}

/* A new entry with room for inline bytes after it, or NULL. */
static inline struct reqlog_entry *append(struct ebsp_core *self, uint32_t kind, size_t inline_bytes)
{
    struct ebsp_bytes *log = &self->reqlog;
    size_t size = sizeof(struct reqlog_entry) + pad8(inline_bytes);
    if (log->used + size > log->cap && !make_room(self, size))
        return NULL;
    struct reqlog_entry *e = (struct reqlog_entry *)(log->buf + log->used);
    log->used += size;
    e->kind = kind;
    return e;
}

int reqlog_put(struct ebsp_core *self, int pid, const void *src, void *dst, int offset, int nbytes)
{
    if (nbytes < 0 || nbytes >= INLINE_MAX || (!src && nbytes > 0))
        return 0;
    struct reqlog_entry *e = append(self, REQ_PUT, (size_t)nbytes);
    if (!e)
        return 0;
    e->pid = pid;
    e->offset = offset;
    e->nbytes = nbytes;
    e->variable = dst;
    e->dst = NULL;
    return copy_user((unsigned char *)(e + 1), src, (size_t)nbytes) || undo_append(self, (size_t)nbytes);
}

/* Whether the nbytes at dst can be written. The pages found so in this
 * superstep are remembered as one range, which gets into consecutive
 * bytes extend: a loop of word gets looks at each page once, not at each
 * word (a tenth of such a get to another rank). With a call, memory that
 * cannot be written is reported (user_writable, core.h). */
int user_writable_look(struct ebsp_core *self, const char *call, const char *what, void *dst, size_t nbytes)
{
    uintptr_t lo = (uintptr_t)dst, hi = lo + nbytes, page = 4096;
    int32_t stamp = superstep_stamp(self);
    size_t good = hi < lo || self->good_stamp != stamp || lo < self->good_lo || hi > self->good_hi
                      ? user_memory_good(dst, nbytes, 1)
                      : nbytes;
    if (good < nbytes) {
        if (call)
            goBadUserMemory(self->pid, (char *)call, (char *)what, (uintptr_t)dst, nbytes, good, 1);
        return 0;
    }
    if (hi < lo) /* wraps: no memory of the program's (not reached: the check fails) */
        return 1;
    uintptr_t first = lo & ~(page - 1), end = (hi + page - 1) & ~(page - 1);
    if (self->good_stamp == stamp && first <= self->good_hi && end >= self->good_lo) {
        first = first < self->good_lo ? first : self->good_lo;
        end = end > self->good_hi ? end : self->good_hi;
    }
    self->good_lo = first;
    self->good_hi = end;
    self->good_stamp = stamp;
    return 1;
}

int reqlog_get(struct ebsp_core *self, int pid, const void *src, int offset, void *dst, int nbytes)
{
    /* the engine writes dst at the sync, in Go: one that cannot be written
       goes to it now instead, to be reported by the call */
    if (nbytes > 0 && !user_writable_look(self, NULL, NULL, dst, (size_t)nbytes))
        return 0;
    struct reqlog_entry *e = append(self, REQ_GET, 0);
    if (!e)
        return 0;
    e->pid = pid;
    e->offset = offset;
    e->nbytes = nbytes;
    e->variable = (void *)src;
    e->dst = dst;
    return 1;
}

int reqlog_send(struct ebsp_core *self, int pid, const void *tag, const void *payload, int nbytes)
{
    int tagsize = self->tagsize;
    if (!send_is_plain(tagsize, tag, payload, nbytes) || nbytes >= INLINE_MAX - tagsize)
        return 0;
    struct reqlog_entry *e = append(self, REQ_SEND, (size_t)tagsize + (size_t)nbytes);
    if (!e)
        return 0;
    e->pid = pid;
    e->offset = tagsize;
    e->nbytes = nbytes;
    e->variable = NULL;
    e->dst = NULL;
    unsigned char *data = (unsigned char *)(e + 1);
    return (copy_user(data, tag, (size_t)tagsize) && copy_user(data + tagsize, payload, (size_t)nbytes)) ||
           undo_append(self, (size_t)tagsize + (size_t)nbytes);
}

void reqlog_free_all(struct ebsp_core *cores, int n)
{
    for (int i = 0; i < n; i++) {
        free(cores[i].reqlog.buf);
        cores[i].reqlog = (struct ebsp_bytes){0};
    }
}
