/*
 * The per-run state of the LQCD face (made and freed by the scheduler's
 * run hooks) and the machine calls: initMachine, shutdownMachine.
 */
#include "lqcd_face.h"

struct lqcd_state lq = {.topo_lock = PTHREAD_MUTEX_INITIALIZER,
                        .wired_lock = PTHREAD_MUTEX_INITIALIZER,
                        .handles_lock = PTHREAD_MUTEX_INITIALIZER};

/* ---- the run ---- */

static void lqcd_run_end(void);

/* Per-run state of the LQCD API: made before the cores start (the
 * scheduler's run hooks), freed with every channel after they all left. */
static void lqcd_run_begin(int n)
{
    lqcd_run_end(); /* nothing of an earlier run survives */
    lq.first = 0;
    lq.count = n;
    lq.ranks = 0;
    if (ebsp_world_section) { /* n is this rank's part of the section */
        lq.first = ebsp_world_first;
        lq.count = ebsp_world_count;
        n = ebsp_active_nprocs;
        lq.ranks = (n + ebsp_world_per_rank - 1) / ebsp_world_per_rank;
    }
    struct lqcd_core *cores = lqcd_calloc_lines((size_t)n * sizeof *cores);
    if (!cores)
        return;
    for (int i = 0; i < n; i++)
        pthread_mutex_init(&cores[i].dir_lock, NULL);
    for (int k = 0; k < 2; k++)
        lq.slots[k] = lqcd_calloc_lines((size_t)n * sizeof(struct lqcd_slot));
    if (!lq.slots[0] || !lq.slots[1] || (lq.ranks && lq_outboxes_make() != 0)) {
        free(lq.slots[0]);
        free(lq.slots[1]);
        lq.slots[0] = lq.slots[1] = NULL;
        free(cores);
        return;
    }
    atomic_store(&lq.diverged, 0);
    atomic_store(&lq.deadlocked, 0);
    lq.n = n;
    lq.cores = cores;
}

/* The memory of staged messages whose bytes came apart (WORLD_BODY_APART
 * and more), kept for the next ones until the run ends, at most
 * STAGES_KEPT pieces and STAGES_KEPT_BYTES in all: freed, it went back to
 * the system, and MPI's copy of the next message into fresh memory
 * faulted its pages in one by one (82 % of a 2 x 8 halo's page faults
 * with 64 KiB faces, in the kernel's copy). */
enum { STAGES_KEPT = 32 };
#define STAGES_KEPT_BYTES ((size_t)32 << 20)
static struct {
    pthread_mutex_t lock;
    int n;
    size_t bytes; /* kept in all */
    struct kept_stage {
        void *at;
        size_t bytes;
    } kept[STAGES_KEPT];
} stages = {.lock = PTHREAD_MUTEX_INITIALIZER};

void *lq_stage_alloc(size_t bytes)
{
    void *at = NULL;
    pthread_mutex_lock(&stages.lock);
    for (int i = stages.n - 1; i >= 0; i--)
        if (stages.kept[i].bytes >= bytes) {
            at = stages.kept[i].at;
            stages.bytes -= stages.kept[i].bytes;
            stages.kept[i] = stages.kept[--stages.n];
            break;
        }
    pthread_mutex_unlock(&stages.lock);
    return at ? at : malloc(bytes);
}

/* A staged message's memory: kept when its bytes came apart (the size
 * it was asked for is the size it is kept as), else freed. */
static void stage_free(void *at, int nbytes)
{
    size_t bytes = sizeof(struct wire_head) + (size_t)nbytes;
    if (at && nbytes >= WORLD_BODY_APART) {
        pthread_mutex_lock(&stages.lock);
        int kept = stages.n < STAGES_KEPT && stages.bytes + bytes <= STAGES_KEPT_BYTES;
        if (kept) {
            stages.kept[stages.n++] = (struct kept_stage){at, bytes};
            stages.bytes += bytes;
        }
        pthread_mutex_unlock(&stages.lock);
        if (kept)
            return;
    }
    free(at);
}

static void stages_free(void)
{
    pthread_mutex_lock(&stages.lock);
    while (stages.n > 0)
        free(stages.kept[--stages.n].at);
    stages.bytes = 0;
    pthread_mutex_unlock(&stages.lock);
}

/* A packed message's buffer stays while something holds it: its unpack,
 * and each record staged in place (ranks.c; its head's pad counts them). */
void lq_batch_hold(struct wire_head *batch)
{
    __atomic_add_fetch(&batch->pad, 1, __ATOMIC_RELAXED);
}

void lq_batch_drop(struct wire_head *batch)
{
    if (__atomic_sub_fetch(&batch->pad, 1, __ATOMIC_ACQ_REL) == 0)
        world_release(batch);
}

void lq_free_staged(struct lqcd_chan *st)
{
    if (st->batch)
        lq_batch_drop(st->batch);
    else
        stage_free(st->head, st->nbytes);
    free(st);
}

/* Staged sends that no receive took (run end). */
static void free_unclaimed(struct lqcd_core *c)
{
    for (size_t i = 0; c->dir && i <= c->dir_mask; i++) {
        struct dir_entry *e = &c->dir[i];
        if (!e->used)
            continue;
        for (struct lqcd_chan *o = e->ohead, *next; o; o = next) {
            next = o->dir_next;
            if (o->magic == STAGED_MAGIC)
                lq_free_staged(o);
        }
        for (struct lqcd_chan *q = e->recv ? e->recv->qhead : NULL, *next; q; q = next) {
            next = q->qnext;
            if (q->magic == STAGED_MAGIC)
                lq_free_staged(q);
        }
    }
}

static void lqcd_run_end(void)
{
    if (lq.ranks)
        world_progress(NULL);
    if (lq.cores) {
        /* first: the queues and orphans hold sends of other cores */
        for (int i = 0; i < lq.n; i++)
            free_unclaimed(&lq.cores[i]);
        for (int i = 0; i < lq.n; i++) {
            struct lqcd_core *c = &lq.cores[i];
            for (struct lqcd_chan *ch = c->owned, *next; ch; ch = next) {
                next = ch->owned_next;
                ch->magic = 0;
                if (!world_send_free(ch->wire))
                    free(ch->head); /* else MPI may still read it: it stays */
                free(ch);
            }
            for (struct bcast *b = c->bcasts, *next; b; b = next) {
                next = b->next;
                free(b->stage);
                free(b->sends);
                free(b);
            }
            free(c->tmp);
            free(c->dir);
            pthread_mutex_destroy(&c->dir_lock);
        }
        free(lq.cores);
    }
    lq_handles_free();
    lq_outboxes_free();
    stages_free();
    free(lq.search.seen);
    free(lq.search.places);
    free(lq.search.details);
    memset(&lq.search, 0, sizeof lq.search);
    atomic_store(&lq.wire_sent, 0);
    lq.wire_taken = 0;
    free(lq.slots[0]);
    free(lq.slots[1]);
    free(lq.wired);
    free(lq.gathered);
    lq.wired = NULL;
    lq.nwired = lq.wired_cap = 0;
    lq.gathered = NULL;
    lq.gathered_cap = 0;
    free(lq.pid_of_rank);
    free(lq.rank_of_pid);
    lq.cores = NULL;
    lq.slots[0] = lq.slots[1] = NULL;
    lq.pid_of_rank = lq.rank_of_pid = NULL;
    lq.topo = 0;
    lq.n = 0;
}

static const struct sched_hooks lqcd_hooks = {.run_begin = lqcd_run_begin, .run_end = lqcd_run_end};

__attribute__((constructor)) static void lqcd_register(void)
{
    sched_add_hooks(&lqcd_hooks);
}

/* A core that left its kernel or shut the API down acts no more. */
int lq_gone(int pid)
{
    return sched_where(pid) == WHERE_FINISHED || atomic_load(&lq.cores[pid].shut);
}
