/*
 * The direct logs (direct.h): entries of a header and bytes, padded to 8,
 * carried out in issue order.
 */
#include "direct.h"
#include "shim.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Whether this core's requests of kind may be direct: the engine's mode
 * (direct_mode, which only the engine writes) says. The first of a
 * superstep tells the engine (goBeginDirect: it raises its flags and gives
 * the budget). A counted log keeps its stamp off the superstep, so the
 * inline fast paths (direct.h) miss and every request comes here, where it
 * is counted. */
static int allowed(struct ebsp_core *self, struct ebsp_dlog *log, int kind)
{
    int32_t now = superstep_stamp(self);
    if (log->stamp == now || log->counted == now)
        return 1;
    if (log->closed == now)
        return 0;
    int32_t mode = atomic_load_explicit((_Atomic int32_t *)&self->own->direct_mode, memory_order_relaxed);
    if (!(mode & (1 << kind)))
        return 0;
    int counted = (mode & DIRECT_MODE_COUNTED) != 0;
    log->budget = goBeginDirect(self->pid, kind);
    log->stamp = counted ? 0 : now;
    log->counted = counted ? now : 0;
    return 1;
}

/* The tally of requests between this core and pid, when statistics count
 * log's requests in this superstep (NULL also when out of memory: the
 * request is then carried out uncounted). */
static struct ebsp_tally *tally(struct ebsp_core *self, struct ebsp_dlog *log, int pid)
{
    if (log->counted != superstep_stamp(self))
        return NULL;
    if (!self->own->tally)
        self->own->tally = calloc((size_t)ebsp_active_nprocs, sizeof *self->own->tally);
    return self->own->tally ? &self->own->tally[pid] : NULL;
}

static void count_put(struct ebsp_core *self, struct ebsp_dlog *log, int pid, int nbytes)
{
    struct ebsp_tally *t = tally(self, log, pid);
    if (t) {
        t->puts++;
        t->put_bytes += nbytes;
    }
}

static void count_get(struct ebsp_core *self, int pid, int nbytes)
{
    struct ebsp_tally *t = tally(self, &self->gets, pid);
    if (t) {
        t->gets++;
        t->get_bytes += nbytes;
    }
}

/* A message counts its tag and its payload, as the engine's do. */
static void count_send(struct ebsp_core *self, struct ebsp_dlog *log, int pid, int nbytes)
{
    struct ebsp_tally *t = tally(self, log, pid);
    if (t) {
        t->sends++;
        t->send_bytes += self->tagsize + nbytes;
    }
}

/* Room for an entry of size bytes in b, whose budget is log's, for a
 * request of kind that can be direct; *status says why not when it
 * returns NULL. */
static void *entry(struct ebsp_core *self, struct ebsp_dlog *log, struct ebsp_bytes *b, int kind, size_t size, int *status)
{
    *status = DIRECT_ELSEWHERE;
    if ((int64_t)size > log->budget) {
        goDirectExhausted(self->pid, kind);
        *status = DIRECT_STOPPED;
        return NULL;
    }
    if (b->used + size > b->cap && !bytes_reserve(b, size))
        return NULL;
    void *e = b->buf + b->used;
    b->used += size;
    log->budget -= (int64_t)size;
    *status = DIRECT_LOGGED;
    return e;
}

/* Takes back the entry entry() just made, which could not be filled: the
 * program's bytes cannot be read (copy_user), and the request goes the
 * way that reports it. */
static int entry_undo(struct ebsp_dlog *log, struct ebsp_bytes *b, size_t size)
{
    b->used -= size;
    log->budget += (int64_t)size;
    return DIRECT_ELSEWHERE;
}

int direct_put(struct ebsp_core *self, int pid, const void *src, void *dst, int offset, int nbytes)
{
    if (!src || !allowed(self, &self->puts, DIRECT_PUT))
        return DIRECT_ELSEWHERE;
    char *remote = hp_remote(self, pid, dst, offset, nbytes, 1);
    if (!remote)
        return DIRECT_ELSEWHERE;
    int status;
    size_t size = put_entry_size((size_t)nbytes);
    struct put_entry *e = entry(self, &self->puts, &self->puts.log, DIRECT_PUT, size, &status);
    if (e && !put_entry_fill(e, remote + offset, src, nbytes))
        return entry_undo(&self->puts, &self->puts.log, size);
    if (e)
        count_put(self, &self->puts, pid, nbytes);
    return status;
}

int direct_send(struct ebsp_core *self, int pid, const void *tag, const void *payload, int nbytes)
{
    int tag_len = self->tagsize;
    int n = ebsp_active_nprocs;
    if (!send_is_plain(tag_len, tag, payload, nbytes) || pid < 0 || pid >= n)
        return DIRECT_ELSEWHERE; /* the engine names what is wrong */
    if (!world_local(pid))
        return wire_send(self, pid, tag, payload, nbytes);
    struct ebsp_dlog *s = &self->sends;
    if (!allowed(self, s, DIRECT_SEND))
        return DIRECT_ELSEWHERE;
    for (int p = 0; p < 2; p++)
        if (!self->send_to[p] && !(self->send_to[p] = calloc((size_t)n, sizeof *self->send_to[p])))
            return DIRECT_ELSEWHERE; /* the engine's path, which it allowed too */
    int32_t stamp = superstep_stamp(self);
    struct ebsp_dlog *d = &self->send_to[(stamp - 1) & 1][pid];
    if (d->stamp != stamp) { /* the first message to pid in this superstep */
        d->stamp = stamp;
        d->log.used = 0;
    }
    int status;
    size_t size = send_entry_size((size_t)tag_len, (size_t)nbytes);
    struct send_entry *e = entry(self, s, &d->log, DIRECT_SEND, size, &status);
    if (e && !send_entry_fill(e, tag_len, tag, payload, nbytes))
        return entry_undo(s, &d->log, size);
    if (e)
        count_send(self, s, pid, nbytes);
    return status;
}

/* A get the engine carries lands after the direct ones (the sync writes
 * the log's destinations first, then the engine's replies): once one is
 * the engine's, the core's later gets of the superstep are too, and all
 * land in the order of issue. The log closes for the superstep; the next
 * opens it again. */
static int gets_to_engine(struct ebsp_core *self)
{
    struct ebsp_dlog *log = &self->gets;
    log->closed = superstep_stamp(self);
    log->stamp = log->counted = 0;
    return DIRECT_ELSEWHERE;
}

int direct_get(struct ebsp_core *self, int pid, const void *src, int offset, void *dst, int nbytes)
{
    /* a get from another process is the engine's: asking would raise the
       direct gets' flag, which keeps large payloads from landing in place */
    if (!dst || !world_local(pid) || !allowed(self, &self->gets, DIRECT_GET))
        return gets_to_engine(self);
    /* the sync writes dst: one that cannot be written goes the engine's
       way, which reports it at the call */
    if (nbytes > 0 && !user_writable_look(self, NULL, NULL, dst, (size_t)nbytes))
        return gets_to_engine(self);
    char *remote = hp_remote(self, pid, src, offset, nbytes, 0);
    if (!remote)
        return gets_to_engine(self);
    int status;
    struct get_entry *e = entry(self, &self->gets, &self->gets.log, DIRECT_GET, get_entry_size((size_t)nbytes), &status);
    if (e) {
        get_entry_fill(e, remote + offset, dst, nbytes);
        count_get(self, pid, nbytes);
    }
    return status;
}

/* The walk of a log. An entry's size is read from the entry, so stepping
 * by it makes every step wait for that load (2.5 ns per 8-byte entry
 * here); stepping by the last size while sizes repeat, a branch the CPU
 * predicts, lets the loop run ahead (0.7 ns, this loop alone over 16384
 * 8-byte puts). apply carries out one entry and returns its byte count,
 * read before its copy (which might alias the log). Inline: apply and
 * entry_size become direct code. */
static inline void walk_log(const struct ebsp_bytes *log, size_t (*entry_size)(size_t), size_t (*apply)(void *entry))
{
    unsigned char *buf = log->buf;
    size_t last = SIZE_MAX, step = 0; /* no entry has SIZE_MAX bytes: the first step computes */
    for (size_t at = 0, used = log->used; at < used; at += step) {
        size_t nbytes = apply(buf + at);
        if (__builtin_expect(nbytes != last, 0)) {
            last = nbytes;
            step = entry_size(nbytes);
        }
    }
}

static size_t read_get(void *entry)
{
    struct get_entry *e = entry;
    size_t nbytes = e->nbytes;
    copy_small(get_bytes(e), e->source, nbytes);
    return nbytes;
}

static size_t write_get(void *entry)
{
    struct get_entry *e = entry;
    size_t nbytes = e->nbytes;
    copy_small(e->dst, get_bytes(e), nbytes);
    return nbytes;
}

/* A put's bytes into its target: every put a sync writes is written here,
 * a direct log's (write_put, in the direct sync, which makes no Go call)
 * and the engine's (direct_write_list: the engine decided each and listed
 * it, engine/putwrite.go), but for a large put from another process that
 * MPI receives straight into its target (engine/placement.go). A bsp_hpput
 * that the direct path takes is copied at the call by copy_user instead,
 * from the program's memory, which may fault (faces/ebsp/comm_api.c). */
static inline void write_put_bytes(void *target, const void *source, size_t nbytes)
{
    copy_small(target, source, nbytes);
}

static size_t write_put(void *entry)
{
    struct put_entry *e = entry;
    size_t nbytes = e->nbytes;
    write_put_bytes(e->target, put_bytes(e), nbytes);
    return nbytes;
}

void direct_write_list(const struct put_write *list, size_t n)
{
    for (const struct put_write *e = list, *end = list + n; e < end; e++)
        write_put_bytes(e->target, e->source, e->nbytes);
}

void direct_read_gets(void)
{
    struct ebsp_core *self = ebsp_self;
    if (self)
        walk_log(&self->gets.log, get_entry_size, read_get);
}

void direct_write_gets(void)
{
    struct ebsp_core *self = ebsp_self;
    if (!self)
        return;
    walk_log(&self->gets.log, get_entry_size, write_get);
    self->gets.log.used = 0;
}

int direct_gets_write(const struct ebsp_core *c, const void *p, size_t n, size_t max)
{
    const unsigned char *buf = c->gets.log.buf;
    uintptr_t lo = (uintptr_t)p, hi = lo + n;
    size_t seen = 0;
    for (size_t at = 0, used = c->gets.log.used; at < used; seen++) {
        const struct get_entry *e = (const void *)(buf + at);
        uintptr_t d = (uintptr_t)e->dst;
        if (seen == max || (d < hi && lo < d + e->nbytes))
            return 1;
        at += get_entry_size(e->nbytes);
    }
    return 0;
}

void direct_write_puts(void)
{
    struct ebsp_core *self = ebsp_self;
    if (!self)
        return;
    walk_log(&self->puts.log, put_entry_size, write_put);
    self->puts.log.used = 0;
}

/* This core's registration slot of variable, remembered for the
 * superstep (BSPlib registrations change only at a sync); -1 when it is
 * not registered. */
static int wire_slot(struct ebsp_core *self, const void *variable, int32_t stamp)
{
    if (self->wire_var != variable || self->wire_var_stamp != stamp) {
        int slot = goWireSlot(self->pid, (void *)variable);
        if (slot < 0)
            return -1;
        if (!self->wire_bound && !(self->wire_bound = malloc((size_t)ebsp_active_nprocs * sizeof *self->wire_bound)))
            return -1;
        for (int i = 0; i < ebsp_active_nprocs; i++)
            self->wire_bound[i] = -1; /* not asked yet */
        self->wire_var = variable;
        self->wire_slot = slot;
        self->wire_var_stamp = stamp;
    }
    return self->wire_slot;
}

/* Whether nbytes at offset lie inside core pid's copy of the current
 * variable (asked of the engine once per core: its mirror of pid's
 * registrations), so that a request out of bounds takes the engine's
 * path, which reports it at the call as within one process. */
static int wire_inside(struct ebsp_core *self, int pid, int offset, int nbytes)
{
    if (self->wire_bound[pid] < 0)
        self->wire_bound[pid] = goWireBound(self->pid, pid, (void *)self->wire_var);
    return (int64_t)offset + nbytes <= self->wire_bound[pid];
}

/* The log of records for pid in this superstep, or NULL. */
static struct ebsp_dlog *wire_log(struct ebsp_core *self, int pid, int32_t stamp)
{
    if (!self->wire_to && !(self->wire_to = calloc((size_t)ebsp_active_nprocs, sizeof *self->wire_to)))
        return NULL;
    struct ebsp_dlog *d = &self->wire_to[pid];
    if (d->stamp != stamp) {
        d->stamp = stamp;
        d->log.used = 0;
        d->run_end = 0;
        d->refs_pending = 0;
    }
    return d;
}

/* Copies the large hpputs to pid that are not in d's log yet into it, in
 * their order, before a record that comes after them (wire_hpput): the
 * sources are unchanged until the sync. DIRECT_LOGGED, or entry's status. */
static int wire_settle_refs(struct ebsp_core *self, struct ebsp_dlog *d, int pid)
{
    for (int i = 0; i < self->own->nrefs && d->refs_pending > 0; i++) {
        struct wire_ref *r = &self->own->wire_refs[i];
        if (r->dst != pid)
            continue;
        int status;
        struct engine_record *h = entry(self, &self->wire, &d->log, DIRECT_WIRE, wire_record_size(r->header.length), &status);
        if (!h)
            return status;
        *h = r->header;
        memcpy(wire_bytes(h), r->src, r->header.length);
        r->dst = -1; /* in the log now */
        d->refs_pending--;
    }
    d->run_end = 0;
    return DIRECT_LOGGED;
}

int wire_send(struct ebsp_core *self, int pid, const void *tag, const void *payload, int nbytes)
{
    int tag_len = self->tagsize;
    if (!allowed(self, &self->wire, DIRECT_WIRE))
        return DIRECT_ELSEWHERE;
    struct ebsp_dlog *d = wire_log(self, pid, superstep_stamp(self));
    int status = d && d->refs_pending ? wire_settle_refs(self, d, pid) : DIRECT_LOGGED;
    if (status != DIRECT_LOGGED)
        return status;
    status = DIRECT_ELSEWHERE;
    size_t size = wire_record_size((size_t)tag_len + (size_t)nbytes);
    struct engine_record *h = d ? entry(self, &self->wire, &d->log, DIRECT_WIRE, size, &status) : NULL;
    if (h && !wire_fill_message(d, h, tag_len, tag, payload, nbytes))
        return entry_undo(&self->wire, &d->log, size);
    if (h)
        count_send(self, &self->wire, pid, nbytes);
    return status;
}

/* The log of a put of nbytes at offset of dst to core pid of another
 * process, and the variable's slot in *slot; NULL when the put is not for
 * the wire (the engine then names what is wrong with it). */
static struct ebsp_dlog *wire_target(struct ebsp_core *self, int pid, const void *src, const void *dst, int offset, int nbytes,
                                     int *slot)
{
    if (!src || pid < 0 || pid >= ebsp_active_nprocs || offset < 0 || nbytes < 0 || !allowed(self, &self->wire, DIRECT_WIRE))
        return NULL;
    int32_t stamp = superstep_stamp(self);
    *slot = wire_slot(self, dst, stamp);
    return *slot < 0 || !wire_inside(self, pid, offset, nbytes) ? NULL : wire_log(self, pid, stamp);
}

int wire_put(struct ebsp_core *self, int pid, const void *src, const void *dst, int offset, int nbytes)
{
    int slot;
    struct ebsp_dlog *d = wire_target(self, pid, src, dst, offset, nbytes, &slot);
    if (!d)
        return DIRECT_ELSEWHERE;
    int32_t stamp = superstep_stamp(self);
    int status = d->refs_pending ? wire_settle_refs(self, d, pid) : DIRECT_LOGGED;
    if (status != DIRECT_LOGGED)
        return status;
    if (self->wire.counted != stamp && wire_extend(&self->wire, d, slot, offset, src, nbytes))
        return DIRECT_LOGGED;
    size_t size = wire_record_size((size_t)nbytes);
    struct engine_record *h = entry(self, &self->wire, &d->log, DIRECT_WIRE, size, &status);
    if (h && !wire_fill(d, h, slot, offset, src, nbytes))
        return entry_undo(&self->wire, &d->log, size);
    if (h)
        count_put(self, &self->wire, pid, nbytes);
    return status;
}

void put_fast_call(struct ebsp_core *self, int pid, const void *src, void *dst, int offset, int nbytes)
{
    int logged = world_local(pid) ? direct_put_fast(self, pid, src, dst, offset, nbytes)
                                  : wire_put_fast(self, pid, src, dst, offset, nbytes);
    if (!logged)
        put_slow(pid, src, dst, offset, nbytes);
}

void send_fast_call(struct ebsp_core *self, int pid, const void *tag, const void *payload, int nbytes)
{
    if (!send_fast(self, pid, tag, payload, nbytes))
        send_slow(pid, tag, payload, nbytes);
}

int wire_hpput(struct ebsp_core *self, int pid, const void *src, const void *dst, int offset, int nbytes)
{
    if (nbytes < WIRE_REF_MIN)
        return wire_put(self, pid, src, dst, offset, nbytes);
    int slot;
    struct ebsp_dlog *d = wire_target(self, pid, src, dst, offset, nbytes, &slot);
    /* the source is read in the sync: looked at now (the engine reports
       one that cannot be read), at little cost beside 32 KiB and more */
    if (!d || user_memory_good(src, (size_t)nbytes, 0) < (size_t)nbytes)
        return DIRECT_ELSEWHERE;
    int32_t stamp = superstep_stamp(self);
    if (self->own->refs_stamp != stamp) {
        self->own->refs_stamp = stamp;
        self->own->nrefs = 0;
    }
    if (self->own->nrefs == self->own->refs_cap) {
        int cap = self->own->refs_cap ? 2 * self->own->refs_cap : 16;
        struct wire_ref *r = realloc(self->own->wire_refs, (size_t)cap * sizeof *r);
        if (!r)
            return wire_put(self, pid, src, dst, offset, nbytes);
        self->own->wire_refs = r;
        self->own->refs_cap = cap;
    }
    struct wire_ref *r = &self->own->wire_refs[self->own->nrefs++];
    r->header = (struct engine_record){WIRE_KIND_PUT, (uint32_t)slot, (uint32_t)offset, (uint32_t)nbytes};
    r->src = src;
    r->dst = pid;
    d->refs_pending++;
    d->run_end = 0; /* a put after it must not join a record before it */
    count_put(self, &self->wire, pid, nbytes);
    return DIRECT_LOGGED;
}

void direct_free_all(struct ebsp_core *cores, int n)
{
    for (int i = 0; i < n; i++) {
        for (int t = 0; cores[i].wire_to && t < n; t++)
            free(cores[i].wire_to[t].log.buf);
        free(cores[i].wire_to);
        free(cores[i].wire_bound);
        free(cores[i].own->tally);
        free(cores[i].own->wire_refs);
        cores[i].own->wire_refs = NULL;
        cores[i].own->nrefs = cores[i].own->refs_cap = cores[i].own->refs_stamp = 0;
        cores[i].wire_to = NULL;
        cores[i].wire_bound = NULL;
        cores[i].own->tally = NULL;
        cores[i].wire = (struct ebsp_dlog){0};
        cores[i].wire_var = NULL;
        for (int p = 0; p < 2; p++) {
            for (int t = 0; cores[i].send_to[p] && t < n; t++)
                free(cores[i].send_to[p][t].log.buf);
            free(cores[i].send_to[p]);
            cores[i].send_to[p] = NULL;
        }
        cores[i].sends = (struct ebsp_dlog){0};
        free(cores[i].puts.log.buf);
        free(cores[i].gets.log.buf);
        cores[i].puts = cores[i].gets = (struct ebsp_dlog){0};
    }
}
