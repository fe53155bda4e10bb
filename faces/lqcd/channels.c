/*
 * Channels within this process, the mechanics the calls share: a core's
 * directory of buffer names (its receives, and the orphan sends declared
 * before them), linking a send to its receive, the copy, and telling a
 * waiting core that one of its operations completed.
 */
#include "lqcd_face.h"

/* Tells core pid that one of its operations completed: nothing when it is
 * not waiting, else the scheduler's wake for that core only (a futex
 * system call for a thread, a poke of its worker for a coroutine; not
 * every parked core: a
 * 16-core halo exchange made each notify wake them all, and all of them
 * went round their wait loops). A waiter stores its sleeping word and then
 * looks at the state of the operation it waits for once more; the caller
 * stored that state before this fence: one of the two sees the other. The
 * event count is raised only for a waiter: its cache line then stays with
 * the cores that read it (the count's add was 9 % of a 16-core halo
 * exchange in perf, one line transfer between CPUs per message). */
void lq_notify(int pid)
{
    struct lqcd_core *c = &lq.cores[pid];
    atomic_thread_fence(memory_order_seq_cst);
    if (!atomic_load(&c->sleeping))
        return;
    atomic_fetch_add(&c->ev, 1);
    sched_wake(&c->ev, pid);
}

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

struct lqcd_chan *lq_new_chan(struct lqcd_core *c, uint32_t magic, int owner, void *buf, int nbytes, int name)
{
    struct lqcd_chan *ch = calloc(1, sizeof *ch);
    if (!ch)
        return NULL;
    if (lq_handle_add(ch) != 0) {
        free(ch);
        return NULL;
    }
    ch->magic = magic;
    ch->owner = owner;
    ch->buf = buf;
    ch->nbytes = nbytes;
    ch->name = name;
    ch->remote = owner;
    ch->rank = -1;
    atomic_flag_clear(&ch->lock);
    ch->owned_next = c->owned;
    c->owned = ch;
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
    if (s->nbytes)
        memcpy(r->buf, s->buf, (size_t)s->nbytes);
    lq_set_state(r, CH_DONE);
    lq_set_state(s, CH_DONE);
}

/* Send s (local or staged) meets receive r: delivered now if r is armed,
 * else queued. */
void lq_offer(struct lqcd_chan *s, struct lqcd_chan *r)
{
    lq_spin_lock(&r->lock);
    if (atomic_load(&r->state) == CH_ARMED) {
        lq_set_state(r, CH_CLAIMED);
        lq_spin_unlock(&r->lock);
        lq_deliver(s, r);
        if (r->owner != s->owner || s->magic == STAGED_MAGIC)
            lq_notify(r->owner);
        if (s->magic == STAGED_MAGIC)
            lq_free_staged(s); /* delivered: its sender needs no answer */
        return;
    }
    s->qnext = NULL;
    if (r->qtail)
        r->qtail->qnext = s;
    else
        r->qhead = s;
    r->qtail = s;
    lq_spin_unlock(&r->lock);
}
