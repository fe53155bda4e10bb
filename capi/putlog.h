/*
 * Direct puts: the board's way of doing bsp_put. The target's address is
 * resolved at the call (the registration cache of hpcache.c), the source
 * bytes are copied into the core's put log, and in the sync, once every
 * core has served the gets of the superstep, the core writes its own puts
 * to their targets: one copy at the call and one in the sync, nothing
 * parsed or packed. The engine decides per superstep whether a core may
 * put this way (not with statistics or strict checks, see
 * runtime.Core.BeginDirectPuts) and when the puts are written (phase B of
 * the sync); a put the cache cannot resolve takes the request log instead,
 * where the engine reports what is wrong with it.
 */
#ifndef EBSP_PUTLOG_H
#define EBSP_PUTLOG_H

#include "shim.h"
#include "smallcopy.h"

/* What putlog_put did with a put. */
enum { PUT_ELSEWHERE = 0, /* take the request log: not resolvable here, or
                             the engine refused direct puts this superstep */
       PUT_LOGGED = 1,
       PUT_STOPPED = 2 /* over the communication limit: the run is stopping */ };

int putlog_put(struct ebsp_core *self, int pid, const void *src, void *dst, int offset, int nbytes);

struct put_entry {
    void *target; /* the byte the put starts at, in the target core's copy */
    size_t nbytes;
};

static inline size_t put_entry_size(size_t nbytes)
{
    return sizeof(struct put_entry) + ((nbytes + 7) & ~(size_t)7);
}

/* putlog_put when everything is known already (the engine allowed direct
 * puts in this superstep, the target is in the registration cache, the log
 * has room): inline in bsp_put, no call. 0 when putlog_put must decide. */
static inline int putlog_put_fast(struct ebsp_core *self, int pid, const void *src, void *dst, int offset, int nbytes)
{
    struct ebsp_putlog *log = &self->putlog;
    int32_t stamp = atomic_load_explicit((_Atomic int32_t *)&self->superstep, memory_order_relaxed) + 1;
    if (log->stamp != stamp || !src)
        return 0;
    char *remote = hp_cached(self, pid, dst, offset, nbytes, stamp);
    size_t size = put_entry_size((size_t)nbytes);
    if (!remote || log->used + size > log->cap || (int64_t)size > log->budget)
        return 0;
    struct put_entry *e = (struct put_entry *)(log->buf + log->used);
    log->used += size;
    log->budget -= (int64_t)size;
    e->target = remote + offset;
    e->nbytes = (size_t)nbytes;
    copy_small(e + 1, src, (size_t)nbytes);
    return 1;
}

/* Writes the calling core's logged puts to their targets, in issue order,
 * and empties its log: called by the engine in phase B of the sync, which
 * runs on the core's own thread (capi/comm.go). */
void putlog_write(void);

/* Run end: returns the logs' memory, dropping puts never synced. */
void putlog_free_all(struct ebsp_core *cores, int n);

/* Go: whether core pid may put directly in this superstep, and the bytes
 * it may log (capi/comm.go); and the engine's report of a log over that. */
extern int goBeginDirectPuts(int pid, int64_t *budget);
extern void goDirectPutsExhausted(int pid);

#endif
