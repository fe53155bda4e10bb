/*
 * The channel calls: declareReceive, declareSendTo, declareSendRelative,
 * startSend, startReceive, testCompletion (a send to another rank is
 * ranks.c's).
 */
#include "lqcd_face.h"

void *declareReceive(void *buffer, int nbytes, int bufName)
{
    struct lqcd_core *c = lq_core_of_caller("declareReceive", 1);
    if (!c || !lq_check_buffer("declareReceive", buffer, nbytes, 1))
        return NULL;
    int pid = ebsp_self->pid;
    pthread_mutex_lock(&c->dir_lock);
    struct lqcd_chan *r = NULL;
    struct dir_entry *e = lq_dir_get(c, bufName);
    if (!e) {
        lq_seterr(LQCD_ERR_NOMEM, "declareReceive: out of memory");
        goto out;
    }
    if (e->recv) {
        lq_seterr(LQCD_ERR_NAME_TAKEN, "declareReceive: core %d already declared buffer %d", pid, bufName);
        goto out;
    }
    /* sends declared before this buffer: all must have its size */
    int bad = 0;
    struct lqcd_chan *prev = NULL;
    for (struct lqcd_chan *s = e->ohead, *next; s; s = next) {
        next = s->dir_next;
        if (s->nbytes == nbytes) {
            prev = s;
            continue;
        }
        if (!bad++)
            lq_seterr(LQCD_ERR_SIZE, "declareReceive: buffer %d of %d bytes, but core %d declared a send of %d bytes to it",
                   bufName, nbytes, s->owner, s->nbytes);
        /* the send fails; it stays an orphan no more */
        if (prev)
            prev->dir_next = next;
        else
            e->ohead = next;
        if (e->otail == s)
            e->otail = prev;
        if (s->magic == STAGED_MAGIC) {
            lq_answer(s, LQCD_ERR_SIZE);
        } else {
            atomic_store(&s->err, LQCD_ERR_SIZE);
            lq_notify(s->owner);
        }
    }
    if (bad)
        goto out;
    r = lq_new_chan(c, RECV_MAGIC, pid, buffer, nbytes, bufName);
    if (!r) {
        lq_seterr(LQCD_ERR_NOMEM, "declareReceive: out of memory");
        goto out;
    }
    for (struct lqcd_chan *s = e->ohead, *next; s; s = next) {
        next = s->dir_next;
        lq_link_send(s, r);
    }
    e->ohead = e->otail = NULL;
    e->recv = r;
out:
    pthread_mutex_unlock(&c->dir_lock);
    return r;
}

struct lqcd_chan *lq_declare_send(struct lqcd_core *c, const char *call, void *buffer, int nbytes, int host,
                                      int name, int relative)
{
    if (!lq_local(host))
        return lq_declare_wired(c, call, buffer, nbytes, host, name, relative);
    int pid = ebsp_self->pid;
    struct lqcd_core *rc = &lq.cores[host];
    struct lqcd_chan *s = NULL;
    pthread_mutex_lock(&rc->dir_lock);
    struct lqcd_chan *r = lq_find_recv(rc, name);
    if (r && r->nbytes != nbytes) {
        lq_seterr(LQCD_ERR_SIZE, "%s: a send of %d bytes to buffer %d of core %d, which declared it with %d bytes",
               call, nbytes, name, host, r->nbytes);
    } else if (!r && lq_gone(host)) {
        lq_seterr(LQCD_ERR_NO_BUFFER, "%s: core %d never declared buffer %d and %s", call, host, name,
               atomic_load(&rc->shut) ? "has shut down" : "has left its kernel");
    } else if (!(s = lq_new_chan(c, SEND_MAGIC, pid, buffer, nbytes, name))) {
        lq_seterr(LQCD_ERR_NOMEM, "%s: out of memory", call);
    } else {
        s->remote = host;
        s->relative = relative;
        if (r) {
            lq_link_send(s, r);
        } else if (lq_add_orphan(rc, s) != 0) {
            s->magic = 0; /* freed with the run */
            s = NULL;
            lq_seterr(LQCD_ERR_NOMEM, "%s: out of memory", call);
        }
    }
    pthread_mutex_unlock(&rc->dir_lock);
    return s;
}

void *declareSendTo(void *buffer, int nbytes, int remoteHost, int remoteBuffer)
{
    struct lqcd_core *c = lq_core_of_caller("declareSendTo", 1);
    if (!c || !lq_check_buffer("declareSendTo", buffer, nbytes, 0))
        return NULL;
    if (remoteHost < 0 || remoteHost >= lq.n) {
        lq_seterr(LQCD_ERR_HOST, "declareSendTo: host %d does not exist (the run has cores 0..%d)", remoteHost, lq.n - 1);
        return NULL;
    }
    return lq_declare_send(c, "declareSendTo", buffer, nbytes, remoteHost, remoteBuffer, 0);
}

void *declareSendRelative(void *buffer, int nbytes, int relativeHost, int remoteBuffer)
{
    struct lqcd_core *c = lq_core_of_caller("declareSendRelative", 1);
    if (!c || !lq_check_buffer("declareSendRelative", buffer, nbytes, 0))
        return NULL;
    if (!c->topo) {
        lq_seterr(LQCD_ERR_NO_TOPOLOGY, "declareSendRelative: no topology declared on core %d (declareTopology)",
               ebsp_self->pid);
        return NULL;
    }
    /* compared before any negation: -INT_MIN does not exist */
    if (relativeHost == 0 || relativeHost < -lq.ndims || relativeHost > lq.ndims) {
        lq_seterr(LQCD_ERR_DIRECTION, "declareSendRelative: direction %d (want +-1 .. +-%d)", relativeHost, lq.ndims);
        return NULL;
    }
    int d = relativeHost < 0 ? -relativeHost : relativeHost;
    int host = c->nb[2 * (d - 1) + (relativeHost < 0)];
    return lq_declare_send(c, "declareSendRelative", buffer, nbytes, host, remoteBuffer, relativeHost);
}

void lq_start_send(struct lqcd_chan *s)
{
    if (s->rank >= 0) {
        lq_set_state(s, CH_PENDING);
        atomic_fetch_add_explicit(&lq.wire_sent, 1, memory_order_relaxed); /* the deadlock search counts */
        if (lq_outbox_takes(s) && lq_outbox_add(s) == 0) {
            lq_set_state(s, CH_DONE);
            return;
        }
        if (world_send_start(s->wire) != 0)
            atomic_store(&s->err, LQCD_ERR_PARTNER);
        return; /* what other ranks sent is taken in by the tests and waits (lq_poll) */
    }
    for (;;) {
        struct lqcd_chan *r = atomic_load(&s->target);
        if (!r) {
            /* an orphan: the receiver has not declared the buffer (yet) */
            struct lqcd_core *rc = &lq.cores[s->remote];
            pthread_mutex_lock(&rc->dir_lock);
            r = atomic_load(&s->target);
            if (!r)
                atomic_store(&s->state, CH_PENDING); /* queued when the receive is declared */
            pthread_mutex_unlock(&rc->dir_lock);
            if (!r)
                return;
        }
        lq_set_state(s, CH_PENDING);
        if (lq_offer(s, r))
            return;
    }
}

/* startSend of s, the caller's send; 0, or -1 (error set). */
static inline __attribute__((always_inline)) int start_send(struct lqcd_chan *s)
{
    int e = atomic_load(&s->err);
    if (e) {
        lq_send_failed(s, "startSend", e, "it");
        return -1;
    }
    if (s->rank >= 0)
        lq_refresh(s);
    if (atomic_load(&s->state) == CH_PENDING) {
        lq_seterr(LQCD_ERR_BUSY, "startSend: the send to buffer %d of core %d is busy (its last start is not complete)",
               s->name, s->remote);
        return -1;
    }
    lq_start_send(s);
    return 0;
}

void startSend(void *opaque)
{
    struct lqcd_chan *s = lq_chan_of(opaque, "startSend");
    if (!s)
        return;
    if (s->magic != SEND_MAGIC) {
        lq_seterr(LQCD_ERR_CHANNEL, "startSend: buffer %d of core %d is a receive", s->name, s->owner);
        return;
    }
    start_send(s);
}

/* startReceive of r, the caller's receive; 0, or -1 (error set). */
static inline __attribute__((always_inline)) int start_receive(struct lqcd_chan *r)
{
    int st = atomic_load(&r->state);
    if (st == CH_ARMED || st == CH_CLAIMED) {
        lq_seterr(LQCD_ERR_BUSY, "startReceive: buffer %d of core %d is busy (armed, nothing arrived yet)", r->name,
               r->owner);
        return -1;
    }
    /* no lq_poll here: what arrives from other ranks after this lands
       straight in the armed buffer when a test or wait takes it in */
    lq_spin_lock(&r->lock);
    struct lqcd_chan *s = r->qhead;
    if (s) {
        r->qhead = s->qnext;
        if (!r->qhead)
            r->qtail = NULL;
        lq_set_state(r, CH_CLAIMED);
        lq_spin_unlock(&r->lock);
        lq_deliver(s, r);
        if (s->magic == STAGED_MAGIC)
            lq_answer(s, 0);
        else if (s->owner != r->owner)
            lq_notify(s->owner);
        return 0;
    }
    lq_set_state(r, CH_ARMED);
    lq_spin_unlock(&r->lock);
    return 0;
}

void startReceive(void *opaque)
{
    struct lqcd_chan *r = lq_chan_of(opaque, "startReceive");
    if (!r)
        return;
    if (r->magic != RECV_MAGIC) {
        lq_seterr(LQCD_ERR_CHANNEL, "startReceive: the channel to buffer %d of core %d is a send", r->name, r->remote);
        return;
    }
    start_receive(r);
}

/* A channel the calling core declared (lqcd_declared.h): its own and
 * live, so not looked up among the handles. */
static inline __attribute__((always_inline)) int start_declared(struct lqcd_chan *c)
{
    return c->magic == SEND_MAGIC ? start_send(c) : start_receive(c);
}

int lqcd_start_declared(void *ch)
{
    return start_declared(ch);
}

int lqcd_start_declared_many(void *chans[], int count)
{
    for (int i = 0; i < count; i++)
        if (start_declared(chans[i]) != 0)
            return i;
    return count;
}

/* 1 complete, 0 in flight, -1 error (set). idle_ok: a channel never
 * started counts as complete (internal waits). */
int lq_status(struct lqcd_chan *ch, const char *call, int idle_ok)
{
    if (ch->rank >= 0)
        lq_refresh(ch);
    int st = atomic_load(&ch->state);
    if (st == CH_DONE)
        return 1;
    int e = atomic_load(&ch->err);
    if (e) {
        lq_send_failed(ch, call, e, "the buffer");
        return -1;
    }
    if (st == CH_IDLE) {
        if (idle_ok)
            return 1;
        if (ch->magic == SEND_MAGIC)
            lq_seterr(LQCD_ERR_NOT_STARTED, "%s: the send to buffer %d of core %d was never started", call, ch->name,
                   ch->remote);
        else
            lq_seterr(LQCD_ERR_NOT_STARTED, "%s: buffer %d of core %d was never armed (startReceive)", call, ch->name,
                   ch->owner);
        return -1;
    }
    return 0;
}

int testCompletion(void *opaque)
{
    struct lqcd_chan *ch = lq_chan_of(opaque, "testCompletion");
    return ch ? lqcd_test_declared(ch) : -1;
}

int lqcd_test_declared(void *ch)
{
    struct lqcd_chan *c = ch;
    if (atomic_load(&c->state) == CH_DONE)
        return 1;
    lq_outbox_flush();
    lq_poll();
    int r = lq_status(c, "testCompletion", 0);
    if (r == 0) {
        /* a core that polls lets the others run: with coroutine cores, its
           partner may be waiting for this core's worker */
        sched_pause();
        r = lq_status(c, "testCompletion", 0);
    }
    return r;
}

int lqcd_free_declared(void *ch)
{
    return ch ? lq_free_chan(ch) : 0;
}
