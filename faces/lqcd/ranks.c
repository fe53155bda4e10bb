/*
 * Channels and collectives across the ranks of an MPI section.
 */
#include "lqcd_face.h"

/* ---- across MPI ranks ---- */

/* Sets the error of call on send s, which failed with err; buffer names
 * the receive ("it", "the buffer"). */
void lq_send_failed(const struct lqcd_chan *s, const char *call, int err, const char *buffer)
{
    /* a local send fails only for its size; one to another rank also when
       the receiver refused it or MPI failed */
    const char *why = err == LQCD_ERR_NO_BUFFER ? "its core left its kernel without declaring the buffer"
                                                : "an MPI call failed";
    if (err == LQCD_ERR_SIZE)
        lq_seterr(err, "%s: the send to buffer %d of core %d failed: core %d declared %s with another size", call,
               s->name, s->remote, s->remote, buffer);
    else
        lq_seterr(err, "%s: the send to buffer %d of core %d failed: %s", call, s->name, s->remote, why);
}

/* A send to a core of another rank: a persistent MPI send of its head and
 * its buffer, both read in place at each start. */
struct lqcd_chan *lq_declare_wired(struct lqcd_core *c, const char *call, void *buffer, int nbytes, int host,
                                       int name, int relative)
{
    int pid = ebsp_self->pid;
    struct wire_head *h = calloc(1, sizeof *h);
    struct lqcd_chan *s = h ? lq_new_chan(c, SEND_MAGIC, pid, buffer, nbytes, name) : NULL;
    if (!s) {
        free(h);
        lq_seterr(LQCD_ERR_NOMEM, "%s: out of memory", call);
        return NULL;
    }
    s->remote = host;
    s->relative = relative;
    s->rank = lq_rank_of(host);
    s->head = h;
    pthread_mutex_lock(&lq.wired_lock);
    if (lq.nwired == lq.wired_cap) {
        int cap = lq.wired_cap ? 2 * lq.wired_cap : 64;
        struct lqcd_chan **w = realloc(lq.wired, (size_t)cap * sizeof *w);
        if (w) {
            lq.wired = w;
            lq.wired_cap = cap;
        }
    }
    s->id = lq.nwired < lq.wired_cap ? lq.nwired : -1;
    if (s->id >= 0)
        lq.wired[lq.nwired++] = s;
    pthread_mutex_unlock(&lq.wired_lock);
    *h = (struct wire_head){.kind = WIRE_DATA, .src = pid, .dst = host, .name = name, .nbytes = nbytes, .id = s->id};
    if (s->id >= 0)
        s->wire = world_send_init(h, (int)sizeof *h, buffer, nbytes, s->rank);
    if (!s->wire) {
        s->magic = 0; /* freed with the run */
        lq_seterr(LQCD_ERR_NOMEM, "%s: out of memory, or MPI_Send_init failed", call);
        return NULL;
    }
    return s;
}

/* Staged st is done with: its bytes are in the receive buffer (err 0), or
 * they never will be, which its sender is told; st is freed. */
void lq_answer(struct lqcd_chan *st, int err)
{
    if (err) {
        struct wire_head a = {.kind = WIRE_REFUSED, .src = st->remote, .dst = st->owner, .name = st->name,
                              .id = st->id, .err = err};
        atomic_fetch_add_explicit(&lq.wire_sent, 1, memory_order_relaxed);
        world_send_small(&a, (int)sizeof a, st->rank);
    }
    lq_free_staged(st);
}

/* The receiver refused send h->id. */
static void refused(const struct wire_head *h)
{
    pthread_mutex_lock(&lq.wired_lock);
    struct lqcd_chan *s = h->id >= 0 && h->id < lq.nwired ? lq.wired[h->id] : NULL;
    pthread_mutex_unlock(&lq.wired_lock);
    if (!s)
        return;
    atomic_store(&s->err, h->err);
    lq_notify(s->owner);
}

/* A send to another rank is complete once MPI has its bytes (the owner
 * asks: one thread per channel). */
void lq_refresh(struct lqcd_chan *ch)
{
    if (ch->rank < 0 || ch->magic != SEND_MAGIC || atomic_load(&ch->state) != CH_PENDING)
        return;
    int r = world_send_test(ch->wire);
    if (r < 0)
        atomic_store(&ch->err, LQCD_ERR_PARTNER);
    else if (r == 1 && !atomic_load(&ch->err))
        lq_set_state(ch, CH_DONE);
}

/* The receive of core h->dst that h's send meets, claimed, when it is armed
 * for h's bytes: they may land in it at once. */
static struct lqcd_chan *claim_armed(const struct wire_head *h)
{
    struct lqcd_core *rc = &lq.cores[h->dst];
    pthread_mutex_lock(&rc->dir_lock);
    struct lqcd_chan *r = lq_find_recv(rc, h->name);
    pthread_mutex_unlock(&rc->dir_lock);
    if (!r || r->nbytes != h->nbytes)
        return NULL;
    lq_spin_lock(&r->lock);
    /* still h's receive: r may have been freed and declared again since
       the look (lq_free_chan), its memory being reused */
    int armed = r->magic == RECV_MAGIC && r->name == h->name && r->nbytes == h->nbytes &&
                atomic_load(&r->state) == CH_ARMED;
    if (armed)
        lq_set_state(r, CH_CLAIMED);
    lq_spin_unlock(&r->lock);
    return armed ? r : NULL;
}

/* A send from a core of rank `from` arrived (h: its message, len bytes:
 * the head, then the bytes when they are few, else they follow as a body
 * of their own): they land in their receive when it is armed (a large
 * body with MPI's copy only, as between two MPI processes), else they are
 * staged after the head and meet the receive as a local send would, or
 * wait for the receive's declaration. */
static void stage_at(struct wire_head *h, int from, struct wire_head *batch);

static void stage(struct wire_head *h, int from)
{
    stage_at(h, from, NULL);
}

static void arrived(struct wire_head *h, int len, int from)
{
    int apart = h->nbytes >= WORLD_BODY_APART;
    if (h->nbytes < 0 || len != (int)sizeof *h + (apart ? 0 : h->nbytes)) {
        world_release(h); /* not one of ours: nothing follows it */
        return;
    }
    struct lqcd_chan *r = lq_local(h->dst) ? claim_armed(h) : NULL;
    if (r) {
        if (!apart || world_receive_body(from, r->buf, h->nbytes) == 0) {
            if (!apart && h->nbytes)
                memcpy(r->buf, h + 1, (size_t)h->nbytes);
            lq_set_state(r, CH_DONE);
            lq_notify(r->owner);
        } else {
            lq_set_state(r, CH_ARMED); /* the message is lost; the receive waits on */
        }
        world_release(h);
        return;
    }
    if (apart) {
        struct wire_head *full = lq_stage_alloc(sizeof *h + (size_t)h->nbytes);
        if (full)
            *full = *h;
        world_release(h);
        if (!full) /* out of memory: the message is lost */
            return;
        h = full;
        if (world_receive_body(from, h + 1, h->nbytes) != 0) {
            free(h);
            return;
        }
    }
    stage(h, from);
}

/* A staged record keeps its bytes where they arrived, in the packed
 * message, when they are this many or more: it saves a malloc and a copy
 * of them, and holds the message's buffer (WORLD_SMALL_MAX bytes) until
 * the receive takes it. A 2 x 8 halo's records mostly arrive before their
 * receive is started again. */
enum { STAGE_IN_PLACE_MIN = 1024 };

/* A record h of packed message batch (outbox.c): its bytes land in their
 * armed receive, else they are staged as arrived's, in place or copied. */
static void arrived_record(struct wire_head *h, struct wire_head *batch, int from)
{
    const void *bytes = h + 1;
    struct lqcd_chan *r = lq_local(h->dst) ? claim_armed(h) : NULL;
    if (r) {
        if (h->nbytes)
            memcpy(r->buf, bytes, (size_t)h->nbytes);
        lq_set_state(r, CH_DONE);
        lq_notify(r->owner);
        return;
    }
    if (h->nbytes >= STAGE_IN_PLACE_MIN) {
        lq_batch_hold(batch);
        stage_at(h, from, batch);
        return;
    }
    struct wire_head *copy = malloc(sizeof *h + (size_t)h->nbytes);
    if (!copy) /* out of memory: the message is lost */
        return;
    *copy = *h;
    if (h->nbytes)
        memcpy(copy + 1, bytes, (size_t)h->nbytes);
    stage(copy, from);
}

/* Message h from rank from (its bytes after it: malloc'd, or in packed
 * message batch, which it holds), which found no armed receive, meets its
 * receive as a local send would, or waits for the receive's declaration;
 * refused when neither can be. */
static void stage_at(struct wire_head *h, int from, struct wire_head *batch)
{
    struct lqcd_chan *r;
    struct lqcd_chan *st = lq_local(h->dst) ? calloc(1, sizeof *st) : NULL;
    if (!st) {
        if (batch)
            lq_batch_drop(batch);
        else
            free(h);
        return;
    }
    st->batch = batch;
    st->magic = STAGED_MAGIC;
    st->owner = h->src;
    st->remote = h->dst;
    st->name = h->name;
    st->nbytes = h->nbytes;
    st->buf = (char *)(h + 1);
    st->rank = from;
    st->id = h->id;
    st->head = h;
    atomic_store(&st->state, CH_PENDING);
    struct lqcd_core *rc = &lq.cores[h->dst];
    for (;;) {
        pthread_mutex_lock(&rc->dir_lock);
        r = lq_find_recv(rc, h->name);
        int kept = !r && !lq_gone(h->dst) && lq_add_orphan(rc, st) == 0; /* declareReceive takes it */
        if (r && r->nbytes == st->nbytes)
            atomic_store(&st->target, r);
        pthread_mutex_unlock(&rc->dir_lock);
        if (!r && !kept)
            lq_answer(st, LQCD_ERR_NO_BUFFER);
        else if (r && r->nbytes != st->nbytes)
            lq_answer(st, LQCD_ERR_SIZE);
        else if (r && !lq_offer(st, r))
            continue; /* r was freed meanwhile */
        return;
    }
}

/* The records of packed message h (len bytes, from rank from), each taken
 * in as a message of its own would be (arrived_record); h is let go. */
static void unpack(struct wire_head *h, int len, int from)
{
    char *at = (char *)(h + 1), *end = (char *)h + len;
    h->pad = 1; /* this unpack's hold */
    while (h->nbytes == len - (int)sizeof *h && end - at >= (ptrdiff_t)sizeof *h) {
        struct wire_head *rec = (void *)at;
        if (rec->kind != WIRE_DATA || rec->nbytes < 0 || (size_t)(end - at) < lq_record_bytes(rec->nbytes))
            break;
        lq.wire_taken++;
        arrived_record(rec, h, from);
        at += lq_record_bytes(rec->nbytes);
    }
    lq_batch_drop(h);
}

/* Takes in what other ranks sent this rank's cores: sends and answers.
 * One thread at a time, the others return at once: a message must be
 * queued before the next is received, else two messages of one sender to
 * one buffer, taken by two threads, could be queued in the other order
 * (conform_lqcd's 256 KiB ring over TCP, 4 x 4: 4 runs in 30). */
void lq_poll(void)
{
    static pthread_mutex_t polling = PTHREAD_MUTEX_INITIALIZER;
    if (!lq.ranks || pthread_mutex_trylock(&polling) != 0)
        return;
    atomic_fetch_add_explicit(&lq.polls, 1, memory_order_relaxed);
    for (;;) {
        int from = -1, len = 0;
        struct wire_head *h = world_receive(&from, &len);
        if (!h)
            break;
        int channel = len >= (int)sizeof *h && (h->kind == WIRE_DATA || h->kind == WIRE_REFUSED);
        lq.wire_taken += channel; /* the deadlock search counts */
        if (h->kind == WIRE_BATCH && len >= (int)sizeof *h) {
            unpack(h, len, from);
            continue;
        }
        if (channel && h->kind == WIRE_DATA) {
            arrived(h, len, from);
            continue;
        }
        if (channel)
            refused(h);
        else if (len >= (int)sizeof *h)
            lq_deadlock_message(h, len, from);
        world_release(h);
    }
    pthread_mutex_unlock(&polling);
}

/* After a collective's barrier across ranks: the slots of every core. The
 * rank's first core gathers while the others wait. */
int lq_gather_slots(struct lqcd_slot *slots, int pid)
{
    if (pid == lq.first) {
        size_t bytes = (size_t)lq.count * sizeof *slots;
        void *mine = malloc(bytes);
        lq.gather_failed = !mine;
        if (mine) {
            memcpy(mine, &slots[lq.first], bytes);
            lq.gather_failed = world_gather_cores(mine, sizeof *slots, slots, lq.n) != 0;
            free(mine);
        }
    }
    if (sched_barrier_local(WHERE_LQCD) < 0)
        return -1;
    return lq.gather_failed ? -1 : 0;
}

/* An array sum across ranks: every core's array of n elements of size es,
 * its slot pointing at it. */
int lq_gather_arrays(struct lqcd_slot *slots, int pid, int n, size_t es)
{
    size_t per = (size_t)n * es;
    if (pid == lq.first) {
        char *mine = malloc(per * (size_t)lq.count + 1);
        size_t need = per * (size_t)lq.n;
        if (mine && need > lq.gathered_cap) {
            char *g = realloc(lq.gathered, need);
            if (g) {
                lq.gathered = g;
                lq.gathered_cap = need;
            }
        }
        lq.gather_failed = !mine || need > lq.gathered_cap;
        if (!lq.gather_failed) {
            for (int i = 0; i < lq.count; i++)
                memcpy(mine + (size_t)i * per, slots[lq.first + i].v.p, per);
            lq.gather_failed = world_gather_cores(mine, per, lq.gathered, lq.n) != 0;
        }
        free(mine);
        for (int q = 0; !lq.gather_failed && q < lq.n; q++)
            if (!lq_local(q))
                slots[q].v.p = lq.gathered + (size_t)q * per;
    }
    if (sched_barrier_local(WHERE_LQCD) < 0)
        return -1;
    return lq.gather_failed ? -1 : 0;
}

/* A gather across ranks failed: the run stops. */
void lq_gather_failed(const char *call)
{
    struct ebsp_core *self = ebsp_self;
    if (!sched_stopped() && self->pid == lq.first) {
        char text[120];
        snprintf(text, sizeof text, "LQCD ERROR: %s: an MPI call failed, or out of memory", call);
        goLqcdAbort(self->pid, text);
    }
    sched_stop();
    lq_seterr(LQCD_ERR_STOPPED, "%s: the run is being stopped", call);
    sched_leave_if_stopped();
}
