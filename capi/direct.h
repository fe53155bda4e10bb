/*
 * Direct DRMA: the board's way of doing bsp_put and bsp_get. The remote
 * address is resolved at the call (the registration cache of hpcache.c)
 * and the request goes into one of the core's two direct logs; in the
 * sync the core carries out its own requests: it reads its gets' sources
 * once every core is in the sync, writes their destinations once every
 * core has read, and writes its puts after that. A put copies twice (into
 * the log at the call, to the target in the sync), a get twice (into the
 * log, then to the destination: a destination may be a registered
 * variable that another core's get reads in the same sync), and nothing
 * is parsed or packed. The engine decides whether a core may put or get
 * this way (its direct_mode: not with strict checks, see
 * engine.Core.directMode; with statistics, each request is counted here)
 * and the order of the steps (engine/superstep.go, its plan);
 * a request the cache cannot resolve takes the request log instead, where
 * the engine reports what is wrong with it.
 *
 * Direct sends: bsp_send appends the message to the core's log for its
 * destination, and the engine queues it at the receiver where it lies
 * (engine/direct.go), so a message is copied once at the call and once by
 * bsp_move.
 */
#ifndef EBSP_DIRECT_H
#define EBSP_DIRECT_H

#include "core.h"
#include "smallcopy.h"
#include "engine_defs.h" /* the entries and records, defined by the engine */

/* What direct_put / direct_get did with a request. */
enum { DIRECT_ELSEWHERE = 0, /* take the request log: not resolvable here,
                                or the engine refused this superstep */
       DIRECT_LOGGED = 1,
       DIRECT_STOPPED = 2 /* over the communication limit: the run is stopping */ };

int direct_put(struct ebsp_core *self, int pid, const void *src, void *dst, int offset, int nbytes);
int direct_get(struct ebsp_core *self, int pid, const void *src, int offset, void *dst, int nbytes);
int direct_send(struct ebsp_core *self, int pid, const void *tag, const void *payload, int nbytes);
/* A put (or an hpput, which then completes at the sync) to a core of
 * another process: packed as the engine's record in the block for pid
 * (DIRECT_WIRE), which the engine takes in the sync. */
int wire_put(struct ebsp_core *self, int pid, const void *src, const void *dst, int offset, int nbytes);
/* A bsp_hpput to a core of another process: from WIRE_REF_MIN bytes on,
 * the source is not copied but remembered (struct wire_ref), and the
 * transport sends it from there in the sync, after the records, which
 * BSPlib allows (the source stays unchanged until the sync ends); below,
 * wire_put. A record for that core after it copies it into the log first,
 * so that issue order holds as in one process (a later put wins). */
int wire_hpput(struct ebsp_core *self, int pid, const void *src, const void *dst, int offset, int nbytes);
enum { WIRE_REF_MIN = 32 << 10 };
/* A message to a core of another process, likewise (a tag of the core's
 * tag size; direct_send checked the arguments). */
int wire_send(struct ebsp_core *self, int pid, const void *tag, const void *payload, int nbytes);

/* An entry (struct put_entry, get_entry, send_entry: engine_defs.h) is its
 * header, then its bytes (a put's source, a get's copy of its source, a
 * message's tag and payload), each padded to 8 (headers are 12 bytes on
 * i386). */
static inline size_t direct_padded(size_t nbytes) { return (nbytes + 7) & ~(size_t)7; }
static inline size_t put_entry_size(size_t nbytes) { return direct_padded(sizeof(struct put_entry)) + direct_padded(nbytes); }
static inline size_t get_entry_size(size_t nbytes) { return direct_padded(sizeof(struct get_entry)) + direct_padded(nbytes); }
static inline void *put_bytes(struct put_entry *e) { return (char *)e + direct_padded(sizeof *e); }
static inline void *get_bytes(struct get_entry *e) { return (char *)e + direct_padded(sizeof *e); }

/* The entries' fills, the fast paths and the dispatchers below are
 * inline in every call of the faces (always: gcc otherwise keeps one
 * out-of-line copy for a face's two calls of one, which cost bsp_send of
 * bsp.h a call and a fifth of its instructions). */
#define ALWAYS_INLINE inline __attribute__((always_inline))

/* The entries' contents, written at the call. The program's bytes are
 * copied with copy_user: 0 when they cannot be read (the entry is then
 * not made, and the request goes the way that reports it). */
static ALWAYS_INLINE int put_entry_fill(struct put_entry *e, char *target, const void *src, int nbytes)
{
    e->target = target;
    e->nbytes = (size_t)nbytes;
    return copy_user(put_bytes(e), src, (size_t)nbytes);
}

static inline void get_entry_fill(struct get_entry *e, const char *source, void *dst, int nbytes)
{
    e->source = (void *)source;
    e->dst = dst;
    e->nbytes = (size_t)nbytes;
}

/* Room for a new entry of size bytes in b, whose budget is log's, when it
 * has that room, else NULL; the entry is made when it is filled
 * (direct_commit). */
static inline void *direct_fast_room(struct ebsp_dlog *log, struct ebsp_bytes *b, size_t size)
{
    if (b->used + size > b->cap || (int64_t)size > log->budget)
        return NULL;
    return b->buf + b->used;
}

static inline int direct_commit(struct ebsp_dlog *log, struct ebsp_bytes *b, size_t size)
{
    b->used += size;
    log->budget -= (int64_t)size;
    return 1;
}

/* direct_put when everything is known already (the engine allowed direct
 * puts in this superstep, the target is in the registration cache, the log
 * has room): inline in bsp_put, no call. 0 when direct_put must decide. */
static ALWAYS_INLINE int direct_put_fast(struct ebsp_core *self, int pid, const void *src, void *dst, int offset, int nbytes)
{
    int32_t stamp = superstep_stamp(self);
    if (!src || self->puts.stamp != stamp)
        return 0;
    char *remote = hp_cached(self, pid, dst, offset, nbytes, stamp, 1);
    size_t size = put_entry_size((size_t)nbytes);
    struct put_entry *e = remote ? direct_fast_room(&self->puts, &self->puts.log, size) : NULL;
    return e && put_entry_fill(e, remote + offset, src, nbytes) && direct_commit(&self->puts, &self->puts.log, size);
}

/* The bytes after a record's header. */
static inline unsigned char *wire_bytes(struct engine_record *h) { return (unsigned char *)(h + 1); }

/* The record of a put to another process (wire_put) in room at h of d's
 * log, which becomes its last record, where a run of puts may go on
 * (wire_extend); 0, and nothing changed, when the source cannot be read
 * (copy_user). The record is size bytes (wire_record_size). */
static inline size_t wire_record_size(size_t nbytes) { return WIRE_HEADER + direct_padded(nbytes); }

static ALWAYS_INLINE int wire_fill(struct ebsp_dlog *d, struct engine_record *h, int slot, int offset, const void *src, int nbytes)
{
    if (!copy_user(wire_bytes(h), src, (size_t)nbytes))
        return 0;
    *h = (struct engine_record){WIRE_KIND_PUT, (uint32_t)slot, (uint32_t)offset, (uint32_t)nbytes};
    d->run_at = (size_t)((unsigned char *)h - d->log.buf);
    d->run_end = d->run_at + wire_record_size((size_t)nbytes);
    d->run_slot = (uint32_t)slot;
    d->run_next = (uint32_t)offset + (uint32_t)nbytes;
    return 1;
}

/* The longest run of puts one record carries (wire_extend). */
enum { WIRE_RUN_MAX = 1 << 30 };

/* Appends a put to the last record of d's log when that is a put to the
 * same variable ending where this one starts: a loop of small puts to
 * consecutive words of one core becomes one record, which costs a header
 * and a copy at the receiver instead of one per put. Nothing lies between
 * the two in issue order for that core, so the result is the same. Not
 * when statistics count the puts (the receiver counts records). 0 when it
 * cannot; budget is the wire log whose budget the bytes spend. Any other
 * record appended to the log, or its reset, ends the run (run_end). */
static ALWAYS_INLINE int wire_extend(struct ebsp_dlog *budget, struct ebsp_dlog *d, int slot, int offset, const void *src, int nbytes)
{
    struct ebsp_bytes *b = &d->log;
    if (d->run_end != b->used || !d->run_end || d->run_slot != (uint32_t)slot || d->run_next != (uint32_t)offset)
        return 0;
    struct engine_record *h = (struct engine_record *)(b->buf + d->run_at);
    size_t len = h->length;
    size_t grow = direct_padded(len + (size_t)nbytes) - direct_padded(len);
    if (b->used + grow > b->cap || (int64_t)grow > budget->budget || len + (size_t)nbytes > WIRE_RUN_MAX)
        return 0;
    if (!copy_user(wire_bytes(h) + len, src, (size_t)nbytes))
        return 0;
    h->length = (uint32_t)(len + (size_t)nbytes);
    b->used += grow;
    budget->budget -= (int64_t)grow;
    d->run_end = b->used;
    d->run_next += (uint32_t)nbytes;
    return 1;
}

/* wire_put's fast path, inline in bsp_put: the same variable as the last
 * put to another process, to a core it put to in this superstep; 0 when
 * wire_put must decide. */
static ALWAYS_INLINE int wire_put_fast(struct ebsp_core *self, int pid, const void *src, const void *dst, int offset, int nbytes)
{
    int32_t stamp = superstep_stamp(self);
    if (!src || self->wire.stamp != stamp || self->wire_var != dst || self->wire_var_stamp != stamp ||
        (unsigned)pid >= (unsigned)self->section->nprocs || offset < 0 || nbytes < 0 || self->wire_to[pid].stamp != stamp ||
        (int64_t)offset + nbytes > self->wire_bound[pid] || self->wire_to[pid].refs_pending)
        return 0;
    struct ebsp_dlog *d = &self->wire_to[pid];
    if (wire_extend(&self->wire, d, self->wire_slot, offset, src, nbytes))
        return 1;
    size_t size = wire_record_size((size_t)nbytes);
    struct engine_record *h = direct_fast_room(&self->wire, &d->log, size);
    return h && wire_fill(d, h, self->wire_slot, offset, src, nbytes) && direct_commit(&self->wire, &d->log, size);
}

/* direct_get's fast path, inline in bsp_get; 0 when direct_get must decide. */
static ALWAYS_INLINE int direct_get_fast(struct ebsp_core *self, int pid, const void *src, int offset, void *dst, int nbytes)
{
    int32_t stamp = superstep_stamp(self);
    if (!dst || self->gets.stamp != stamp || !user_known_writable(self, dst, (size_t)nbytes, stamp))
        return 0; /* the sync writes dst: direct_get looks at it first */
    char *remote = hp_cached(self, pid, src, offset, nbytes, stamp, 0);
    size_t size = get_entry_size((size_t)nbytes);
    struct get_entry *e = remote ? direct_fast_room(&self->gets, &self->gets.log, size) : NULL;
    if (!e)
        return 0;
    get_entry_fill(e, remote + offset, dst, nbytes);
    return direct_commit(&self->gets, &self->gets.log, size);
}

/* A direct message (struct send_entry), read by the engine where it lies:
 * the sender keeps it in its log for the destination until the superstep
 * after next, so that bsp_hpmove's pointers into it stay valid. */
static inline size_t send_entry_size(size_t tag_len, size_t nbytes)
{
    return sizeof(struct send_entry) + direct_padded(tag_len + nbytes);
}

/* 0 when the tag or the payload cannot be read (copy_user). */
static ALWAYS_INLINE int send_entry_fill(struct send_entry *e, int tag_len, const void *tag, const void *payload, int nbytes)
{
    e->tag_len = tag_len;
    e->size = nbytes;
    return (tag_len == 0 || copy_user(e + 1, tag, (size_t)tag_len)) && copy_user((char *)(e + 1) + tag_len, payload, (size_t)nbytes);
}

/* The log for messages to pid in this superstep when it has been started,
 * else NULL. */
static inline struct ebsp_dlog *direct_send_log(struct ebsp_core *self, int pid, int32_t stamp)
{
    if (self->sends.stamp != stamp || !self->send_to[1] || pid < 0 || pid >= self->section->nprocs)
        return NULL;
    struct ebsp_dlog *d = &self->send_to[(stamp - 1) & 1][pid];
    return d->stamp == stamp ? d : NULL;
}

/* direct_send's fast path, inline in bsp_send; 0 when direct_send must
 * decide (or report). */
static ALWAYS_INLINE int direct_send_fast(struct ebsp_core *self, int pid, const void *tag, const void *payload, int nbytes)
{
    int tag_len = self->tagsize;
    if (!send_is_plain(tag_len, tag, payload, nbytes))
        return 0;
    struct ebsp_dlog *d = direct_send_log(self, pid, superstep_stamp(self));
    size_t size = send_entry_size((size_t)tag_len, (size_t)nbytes);
    struct send_entry *e = d ? direct_fast_room(&self->sends, &d->log, size) : NULL;
    return e && send_entry_fill(e, tag_len, tag, payload, nbytes) && direct_commit(&self->sends, &d->log, size);
}

/* The record of a message to a core of another process (wire_send) in
 * room at h in d's log: kind, tag length, 0, length, then the tag and the
 * payload. It ends a run of puts (wire_extend). 0, and nothing changed,
 * when the tag or the payload cannot be read (copy_user). */
static ALWAYS_INLINE int wire_fill_message(struct ebsp_dlog *d, struct engine_record *h, int tag_len, const void *tag,
                                           const void *payload, int nbytes)
{
    if ((tag_len && !copy_user(wire_bytes(h), tag, (size_t)tag_len)) || !copy_user(wire_bytes(h) + tag_len, payload, (size_t)nbytes))
        return 0;
    *h = (struct engine_record){WIRE_KIND_MESSAGE, (uint32_t)tag_len, 0, (uint32_t)tag_len + (uint32_t)nbytes};
    d->run_end = 0;
    return 1;
}

/* wire_send's fast path, inline in bsp_send: a message to a core of
 * another process that this core sent to in this superstep already; 0
 * when wire_send must decide. */
static ALWAYS_INLINE int wire_send_fast(struct ebsp_core *self, int pid, const void *tag, const void *payload, int nbytes)
{
    int tag_len = self->tagsize;
    if (self->wire.stamp != superstep_stamp(self) || (unsigned)pid >= (unsigned)self->section->nprocs ||
        !send_is_plain(tag_len, tag, payload, nbytes) || !self->wire_to || self->wire_to[pid].stamp != self->wire.stamp ||
        self->wire_to[pid].refs_pending)
        return 0;
    struct ebsp_dlog *d = &self->wire_to[pid];
    size_t size = wire_record_size((size_t)tag_len + (size_t)nbytes);
    struct engine_record *h = direct_fast_room(&self->wire, &d->log, size);
    return h && wire_fill_message(d, h, tag_len, tag, payload, nbytes) && direct_commit(&self->wire, &d->log, size);
}

/* bsp_send's fast paths in one: 1 when the message is logged. */
static ALWAYS_INLINE int send_fast(struct ebsp_core *self, int pid, const void *tag, const void *payload, int nbytes)
{
    return world_local(pid) ? direct_send_fast(self, pid, tag, payload, nbytes)
                            : wire_send_fast(self, pid, tag, payload, nbytes);
}

/*
 * The one dispatcher of each request, for both faces (which check their
 * own arguments first): the inline fast paths above when they can take
 * the request, else the call's slow path (comm_api.c), which chooses among
 * the direct log, the wire, the request log and the engine. self is the
 * calling core, NULL on the host.
 */
void put_slow(int pid, const void *src, void *dst, int offset, int nbytes);
void get_slow(int pid, const void *src, int offset, void *dst, int nbytes);
void send_slow(int pid, const void *tag, const void *payload, int nbytes);

/* A put to a core of another process, or of more than COPY_INLINE_MAX
 * bytes (put_request): its fast path, else put_slow; out of line
 * (direct.c), so that the others need no saved registers (gcc then saves
 * them only where the copy is made: put_call_ns at P=2 13.5 -> 12.6 ns,
 * median of 4 launches alternating). */
void put_fast_call(struct ebsp_core *self, int pid, const void *src, void *dst, int offset, int nbytes);
/* A message of a tag or a payload of more than COPY_INLINE_MAX bytes: its
 * fast path, else send_slow, out of line (see put_fast_call). */
void send_fast_call(struct ebsp_core *self, int pid, const void *tag, const void *payload, int nbytes);

static ALWAYS_INLINE void put_request(struct ebsp_core *self, int pid, const void *src, void *dst, int offset, int nbytes)
{
    if (self && (!world_local(pid) || (unsigned)nbytes > COPY_INLINE_MAX))
        put_fast_call(self, pid, src, dst, offset, nbytes);
    else if (!self || !direct_put_fast(self, pid, src, dst, offset, nbytes))
        put_slow(pid, src, dst, offset, nbytes);
}

static ALWAYS_INLINE void get_request(struct ebsp_core *self, int pid, const void *src, int offset, void *dst, int nbytes)
{
    if (!self || !direct_get_fast(self, pid, src, offset, dst, nbytes))
        get_slow(pid, src, offset, dst, nbytes);
}

static ALWAYS_INLINE void send_request(struct ebsp_core *self, int pid, const void *tag, const void *payload, int nbytes)
{
    if (self && ((unsigned)nbytes > COPY_INLINE_MAX || (unsigned)self->tagsize > COPY_INLINE_MAX))
        send_fast_call(self, pid, tag, payload, nbytes);
    else if (!self || !send_fast(self, pid, tag, payload, nbytes))
        send_slow(pid, tag, payload, nbytes);
}

/* An exported function whose fast path is one of the above and whose
 * slow path is its last call (bsp_put, bsplib_send, ...), or that ends
 * in a call of the exported function it forwards to (bsplib_sync): it
 * may end in a jump to that call. The library is built without sibling
 * calls (the Makefile's -fno-optimize-sibling-calls), so that a core's
 * crash inside a call of the library finds the call's frame on the stack
 * (faults.c, api_call_on_stack); these calls copy the program's memory
 * only with copy_user (smallcopy.h), which refuses instead of crashing,
 * or leave the naming to the function they jump to, so they need no
 * frame, and without one their fast paths save no registers (3-4 of
 * bsp_put's 90 instructions). */
#define SIBLING_CALLS __attribute__((optimize("optimize-sibling-calls")))

/* The steps of the sync, each on the calling core's own logs (the engine
 * calls them on the core's thread, capi/comm.go; so does bsp_sync's fast
 * path): read the gets' sources, write the gets' destinations, write the
 * puts, each in issue order; the writes empty their log. */
void direct_read_gets(void);
void direct_write_gets(void);
void direct_write_puts(void);
/* The n puts the engine listed, in order (engine.PutWriter). */
void direct_write_list(const struct put_write *list, size_t n);
/* At least n bytes for the engine's blocks and lists, *usable of them
 * (2^k less malloc's and the piece's headers), 8-aligned; NULL when the
 * system refuses them (putmem.c). */
void *putmem_alloc(size_t n, size_t *usable);
void putmem_free(void *mem);

/* Whether a direct get that core c logged in this superstep writes any of
 * the n bytes at p, or c logged more than max (not looked at): 1, else 0.
 * Read by another thread while c waits in a barrier. */
int direct_gets_write(const struct ebsp_core *c, const void *p, size_t n, size_t max);

/* Run end: returns the logs' memory, dropping requests never synced. */
void direct_free_all(struct ebsp_core *cores, int n);

/* Go: core pid makes its first direct request of kind (DIRECT_PUT,
 * DIRECT_GET, ...) in this superstep, which its direct_mode allows; the
 * bytes it may log (capi/comm.go); and the engine's report of a log over
 * that. */
extern int64_t goBeginDirect(int pid, int kind);
extern void goDirectExhausted(int pid, int kind);

#endif
