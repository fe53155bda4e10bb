/*
 * Channels within this process, the mechanics the calls share: a core's
 * directory of buffer names (its receives, and the orphan sends declared
 * before them), linking a send to its receive, the copy, and telling a
 * waiting core that one of its operations completed.
 */
#include "lqcd_face.h"

/* ---- a core's directory of buffer names (its dir_lock held) ---- */

static struct dir_entry *dir_find(struct lqcd_core *c, int name)
{
    if (!c->dir)
        return NULL;
    for (size_t i = lq_hash_bits((uint32_t)name) & c->dir_mask;; i = (i + 1) & c->dir_mask) {
        struct dir_entry *e = &c->dir[i];
        if (!e->used)
            return NULL;
        if (e->name == name)
            return e;
    }
}

/* The entry of name, made if need be; NULL without memory. */
struct dir_entry *lq_dir_get(struct lqcd_core *c, int name)
{
    struct dir_entry *e = dir_find(c, name);
    if (e)
        return e;
    if (!c->dir || 2 * (c->dir_used + 1) > c->dir_mask + 1) {
        size_t cap = c->dir ? 2 * (c->dir_mask + 1) : 16;
        struct dir_entry *d = calloc(cap, sizeof *d);
        if (!d)
            return NULL;
        for (size_t k = 0; c->dir && k <= c->dir_mask; k++) {
            if (!c->dir[k].used)
                continue;
            size_t i = lq_hash_bits((uint32_t)c->dir[k].name) & (cap - 1);
            while (d[i].used)
                i = (i + 1) & (cap - 1);
            d[i] = c->dir[k];
        }
        free(c->dir);
        c->dir = d;
        c->dir_mask = cap - 1;
    }
    size_t i = lq_hash_bits((uint32_t)name) & c->dir_mask;
    while (c->dir[i].used)
        i = (i + 1) & c->dir_mask;
    e = &c->dir[i];
    *e = (struct dir_entry){.name = name, .used = 1};
    c->dir_used++;
    return e;
}

/* A channel of core c: one it freed (a live handle already, in its owned
 * list), else a new one. */
static struct lqcd_chan *chan_alloc(struct lqcd_core *c)
{
    struct lqcd_chan *ch = c->spare;
    if (ch) {
        c->spare = ch->spare_next;
        struct lqcd_chan *owned_next = ch->owned_next;
        memset(ch, 0, sizeof *ch);
        ch->owned_next = owned_next;
        return ch;
    }
    ch = lqcd_calloc_lines(sizeof *ch);
    if (!ch)
        return NULL;
    if (lq_handle_add(ch) != 0) {
        free(ch);
        return NULL;
    }
    ch->owned_next = c->owned;
    c->owned = ch;
    return ch;
}

struct lqcd_chan *lq_new_chan(struct lqcd_core *c, uint32_t magic, int owner, void *buf, int nbytes, int name)
{
    struct lqcd_chan *ch = chan_alloc(c);
    if (!ch)
        return NULL;
    ch->magic = magic;
    ch->owner = owner;
    ch->buf = buf;
    ch->nbytes = nbytes;
    ch->name = name;
    ch->remote = owner;
    ch->rank = -1;
    atomic_flag_clear(&ch->lock);
    return ch;
}

/* Keeps send s for a buffer core c has not declared yet (dir_lock held),
 * after those kept before: declareReceive takes them in order of arrival,
 * which for two messages of one sender on another rank is their order.
 * 0, or -1 without memory. */
int lq_add_orphan(struct lqcd_core *c, struct lqcd_chan *s)
{
    struct dir_entry *e = lq_dir_get(c, s->name);
    if (!e)
        return -1;
    s->dir_next = NULL;
    if (e->otail)
        e->otail->dir_next = s;
    else
        e->ohead = s;
    e->otail = s;
    return 0;
}

struct lqcd_chan *lq_find_recv(struct lqcd_core *c, int name)
{
    struct dir_entry *e = dir_find(c, name);
    return e ? e->recv : NULL;
}

/* Joins send s to receive r (r's owner's dir lock held); a send already
 * started goes into the queue. */
void lq_link_send(struct lqcd_chan *s, struct lqcd_chan *r)
{
    if (s->magic == SEND_MAGIC) { /* a staged one lives until it is delivered */
        s->sender_next = r->senders;
        r->senders = s;
    }
    lq_spin_lock(&r->lock);
    if (atomic_load(&s->state) == CH_PENDING) {
        s->qnext = NULL;
        if (r->qtail)
            r->qtail->qnext = s;
        else
            r->qhead = s;
        r->qtail = s;
    }
    atomic_store(&s->target, r);
    lq_spin_unlock(&r->lock);
}

/* Copies send s into receive r, which the caller claimed. */
void lq_deliver(struct lqcd_chan *s, struct lqcd_chan *r)
{
    copy_small(r->buf, s->buf, (size_t)s->nbytes); /* mostly a halo's few words */
    lq_set_state(r, CH_DONE);
    lq_set_state(s, CH_DONE);
}

/* Send s (local or staged) meets receive r, its target: delivered now if
 * r is armed, else queued; 1. 0: r was freed meanwhile (s->target is no
 * longer r; lq_free_chan changes it under r's lock): look again. */
int lq_offer(struct lqcd_chan *s, struct lqcd_chan *r)
{
    lq_spin_lock(&r->lock);
    if (atomic_load(&s->target) != r) {
        lq_spin_unlock(&r->lock);
        return 0;
    }
    if (atomic_load(&r->state) == CH_ARMED) {
        lq_set_state(r, CH_CLAIMED);
        lq_spin_unlock(&r->lock);
        lq_deliver(s, r);
        if (r->owner != s->owner || s->magic == STAGED_MAGIC)
            lq_notify(r->owner);
        if (s->magic == STAGED_MAGIC)
            lq_free_staged(s); /* delivered: its sender needs no answer */
        return 1;
    }
    s->qnext = NULL;
    if (r->qtail)
        r->qtail->qnext = s;
    else
        r->qhead = s;
    r->qtail = s;
    lq_spin_unlock(&r->lock);
    return 1;
}

/* ---- freeing ---- */

static int in_flight(struct lqcd_chan *ch)
{
    int st = atomic_load(&ch->state);
    return st == CH_PENDING || st == CH_ARMED || st == CH_CLAIMED;
}

/* Takes send s out of the orphans of its name in core c's directory
 * (dir_lock held). */
static void drop_orphan(struct lqcd_core *c, struct lqcd_chan *s)
{
    struct dir_entry *e = dir_find(c, s->name);
    struct lqcd_chan *prev = NULL;
    for (struct lqcd_chan *o = e ? e->ohead : NULL; o; prev = o, o = o->dir_next) {
        if (o != s)
            continue;
        if (prev)
            prev->dir_next = o->dir_next;
        else
            e->ohead = o->dir_next;
        if (e->otail == o)
            e->otail = prev;
        return;
    }
}

/* Send s leaves the receive it was linked to or its place among the
 * orphans (the receiving core's dir_lock held). */
static void unlink_send(struct lqcd_core *rc, struct lqcd_chan *s)
{
    struct lqcd_chan *r = atomic_load(&s->target);
    if (!r) {
        drop_orphan(rc, s);
        return;
    }
    struct lqcd_chan **link = &r->senders;
    while (*link && *link != s)
        link = &(*link)->sender_next;
    if (*link)
        *link = s->sender_next;
    lq_spin_lock(&r->lock);
    atomic_store(&s->target, NULL);
    lq_spin_unlock(&r->lock);
}

/* Receive r leaves its core's directory (its dir_lock held): the sends
 * declared to it, and those staged from other ranks in its queue, become
 * orphans of its name again, in the order of their declarations, for a
 * receive declared under the name later. */
static void unlink_receive(struct lqcd_core *c, struct lqcd_chan *r)
{
    struct dir_entry *e = dir_find(c, r->name);
    if (e && e->recv == r)
        e->recv = NULL;
    lq_spin_lock(&r->lock);
    struct lqcd_chan *staged = r->qhead, *declared = NULL;
    r->qhead = r->qtail = NULL;
    for (struct lqcd_chan *s = r->senders, *next; s; s = next) { /* newest first */
        next = s->sender_next;
        atomic_store(&s->target, NULL);
        s->sender_next = declared;
        declared = s;
    }
    r->senders = NULL;
    lq_spin_unlock(&r->lock);
    for (struct lqcd_chan *s = declared; s; s = s->sender_next)
        lq_add_orphan(c, s); /* an entry exists: no memory needed */
    for (struct lqcd_chan *s = staged, *next; s; s = next) {
        next = s->qnext;
        if (s->magic == STAGED_MAGIC) {
            atomic_store(&s->target, NULL);
            lq_add_orphan(c, s);
        }
    }
}

/* Frees channel ch of the calling core for its next declarations: 0; or
 * -1 when it is in flight or a send to another rank (whose message MPI
 * may still hold), which stay until the run ends. The memory of a
 * channel is reused, never returned: a core that looks at another's
 * channel without a lock (a sender's target, a waiter's channel in the
 * deadlock look) finds a channel still, and checks under the channel's
 * lock that it is the one it meant (lq_offer). */
int lq_free_chan(struct lqcd_chan *ch)
{
    if (ch->rank >= 0 || in_flight(ch))
        return -1;
    struct lqcd_core *rc = &lq.cores[ch->magic == SEND_MAGIC ? ch->remote : ch->owner];
    pthread_mutex_lock(&rc->dir_lock);
    if (ch->magic == SEND_MAGIC)
        unlink_send(rc, ch);
    else
        unlink_receive(rc, ch);
    ch->magic = 0;
    pthread_mutex_unlock(&rc->dir_lock);
    struct lqcd_core *c = &lq.cores[ch->owner];
    ch->spare_next = c->spare;
    c->spare = ch;
    return 0;
}
