/*
 * Small sends to other ranks, packed per destination rank: a send of less
 * than about 4 KiB (OUTBOX_BYTES) is copied into its rank's outbox
 * and is complete at once (its buffer may be reused, as after MPI took an
 * eager message); the outbox leaves as one MPI message when a core of this
 * process finds its wait incomplete or waits alone (waits.c), tests,
 * enters a barrier or leaves its kernel, or when it is full. A 2 x 8 halo
 * exchange sent 16 MPI messages per rank and exchange, each a start, a
 * test and a receive of its own; packed, it sends 4 (of 8-byte faces).
 *
 * A record is a send's head, then its bytes padded to 8; a packed message
 * is a WIRE_BATCH head (nbytes: the records' bytes), then its records, in
 * the order of their starts: two messages of one sender to one buffer
 * arrive in order, as MPI keeps the order of one sender's messages.
 */
#include "lqcd_face.h"

/* A packed message's most bytes: within Open MPI's eager limit over shared
 * memory (4 KiB), above which a message waits for its receiver's answer
 * before it moves (a 2 x 8 halo of 1 KiB faces in 8 KiB messages took
 * longer than unpacked). */
enum { OUTBOX_BYTES = 4096 - 64 };

/* Its buffer is the world's (world_buffer), handed to MPI as it leaves,
 * and a fresh one taken: no copy on the way out. */
struct lq_outbox {
    atomic_flag lock;
    int records;
    size_t used; /* the batch head's bytes included */
    char *buf;   /* OUTBOX_BYTES of it used; NULL until the first record */
};
_Static_assert((int)OUTBOX_BYTES <= (int)WORLD_SMALL_MAX, "an outbox fits a world buffer");

int lq_outbox_takes(const struct lqcd_chan *s)
{
    return lq.outboxes && s->nbytes < WORLD_BODY_APART &&
           sizeof(struct wire_head) + lq_record_bytes(s->nbytes) <= OUTBOX_BYTES;
}

/* The records of ob leave for rank (its lock held). A failed send fails
 * the sends it carried, each seen by its owner at its next start. */
static void flush_locked(struct lq_outbox *ob, int rank)
{
    if (!ob->records)
        return;
    char *full = ob->buf;
    struct wire_head *batch = (struct wire_head *)full;
    *batch = (struct wire_head){.kind = WIRE_BATCH, .nbytes = (int32_t)(ob->used - sizeof *batch),
                                .id = ob->records};
    ob->buf = world_buffer(); /* NULL: the next records go unpacked, or take one then */
    if (world_send_buffer(full, (int)ob->used, rank) != 0) {
        for (size_t at = sizeof *batch; at < ob->used;) {
            const struct wire_head *h = (const void *)(full + at);
            pthread_mutex_lock(&lq.wired_lock);
            struct lqcd_chan *s = h->id >= 0 && h->id < lq.nwired ? lq.wired[h->id] : NULL;
            pthread_mutex_unlock(&lq.wired_lock);
            if (s)
                atomic_store(&s->err, LQCD_ERR_PARTNER);
            at += lq_record_bytes(h->nbytes);
        }
        world_release(full);
    }
    atomic_fetch_sub(&lq.outbox_records, ob->records);
    ob->records = 0;
    ob->used = sizeof *batch;
}

/* Copies send s (a start of it) into its rank's outbox; 0, or -1 without
 * memory (the send then goes as a message of its own). */
int lq_outbox_add(struct lqcd_chan *s)
{
    struct lq_outbox *ob = lq.outboxes[s->rank];
    if (!ob) {
        struct lq_outbox *fresh = malloc(sizeof *fresh);
        if (!fresh)
            return -1;
        atomic_flag_clear(&fresh->lock);
        fresh->records = 0;
        fresh->used = sizeof(struct wire_head);
        fresh->buf = NULL;
        struct lq_outbox *none = NULL;
        if (!atomic_compare_exchange_strong(&lq.outboxes[s->rank], &none, fresh))
            free(fresh);
        ob = lq.outboxes[s->rank];
    }
    size_t need = lq_record_bytes(s->nbytes);
    lq_spin_lock(&ob->lock);
    if (ob->used + need > OUTBOX_BYTES)
        flush_locked(ob, s->rank);
    if (!ob->buf && !(ob->buf = world_buffer())) {
        lq_spin_unlock(&ob->lock);
        return -1;
    }
    struct wire_head *h = (struct wire_head *)(ob->buf + ob->used);
    *h = *s->head;
    if (s->nbytes)
        memcpy(h + 1, s->buf, (size_t)s->nbytes);
    ob->used += need;
    ob->records++;
    atomic_fetch_add(&lq.outbox_records, 1);
    lq_spin_unlock(&ob->lock);
    return 0;
}

void lq_outbox_flush(void)
{
    if (!atomic_load_explicit(&lq.outbox_records, memory_order_relaxed))
        return;
    for (int r = 0; r < lq.ranks; r++) {
        struct lq_outbox *ob = atomic_load(&lq.outboxes[r]);
        if (!ob)
            continue;
        lq_spin_lock(&ob->lock);
        flush_locked(ob, r);
        lq_spin_unlock(&ob->lock);
    }
}

/* A core enters a barrier or leaves its kernel (the scheduler's settle
 * hook): what it sent must leave, as a partner may wait for it. */
static void outbox_settle(struct sched_core *core)
{
    (void)core;
    lq_outbox_flush();
}

static const struct sched_hooks outbox_hooks = {.settle = outbox_settle};

__attribute__((constructor)) static void outbox_register(void)
{
    sched_add_hooks(&outbox_hooks);
}

int lq_outboxes_make(void)
{
    lq.outboxes = calloc((size_t)lq.ranks, sizeof *lq.outboxes);
    return lq.outboxes ? 0 : -1;
}

void lq_outboxes_free(void)
{
    for (int r = 0; lq.outboxes && r < lq.ranks; r++) {
        if (lq.outboxes[r])
            world_release(lq.outboxes[r]->buf);
        free(lq.outboxes[r]);
    }
    free(lq.outboxes);
    lq.outboxes = NULL;
    atomic_store(&lq.outbox_records, 0);
}
