/*
 * Waiting for channels: waitFor, waitForMultiple, and why a wait has not
 * ended (explain).
 */
#include "lqcd_face.h"

static int explain(struct lqcd_chan *ch, const char *call, int ms, int timed_out)
{
    char what[ERR_MAX - 40];
    int code;
    if (!timed_out && !lq_hopeless(ch, &code))
        return 0;
    int hopeless = lq_explain_text(ch, what, sizeof what, &code);
    if (hopeless)
        lq_seterr(code, "%s: %s", call, what);
    else if (timed_out)
        lq_seterr(code, "%s: %d ms passed; %s", call, ms, what);
    return hopeless;
}

/* Marks the calling core as waiting in call for ch (the deadlock checks'
 * look, deadlock.c): from its first sleep to the end of the wait, its
 * wait_seq odd when the wait has no limit; its short wakes in between
 * (slices, polls) do nothing another core could see, and are not marked. */
static void mark_waiting(struct ebsp_core *self, struct lqcd_core *c, int ms, struct lqcd_chan *ch, const char *call)
{
    atomic_store(&c->waited, ch);
    atomic_store(&c->wait_call, call);
    if (ms < 0) /* a wait with a limit ends by itself: no deadlock */
        atomic_fetch_add(&c->wait_seq, 1); /* odd: waiting */
    self->sched.where = WHERE_LQCD_WAIT;
}

static void mark_running(struct ebsp_core *self, struct lqcd_core *c, int ms)
{
    self->sched.where = WHERE_RUNNING;
    if (ms < 0)
        atomic_fetch_add(&c->wait_seq, 1); /* even: running */
}

/* One round of a wait for v[*first..n): takes in what other ranks sent,
 * moves *first past the complete channels; returns 1 when all are, -1 on
 * an error (set), 0 timed out (set), 2 to wait on. */
static int wait_round(struct lqcd_chan **v, int n, int *first, int ms, const char *call, int idle_ok, unsigned look,
                      unsigned *polls)
{
    /* Across ranks, one look at MPI per round of the waiting cores: when
     * another core looked since this one's last look, what came is taken
     * in already (an MPI test that finds nothing yields the CPU under
     * mpi_yield_when_idle). None at a wait's first look, which often
     * finds the wait over (a send that went into an outbox, a receive a
     * core beside it filled), unless no other core waits, which would
     * look soon and send the outbox: a look at every wait's start made
     * 25 system calls of each exchange of a 2 x 8 halo, 31 us against 15
     * without; none when alone made an 8-byte ring across 2 ranks of one
     * core 1.5 -> 2.1 us. */
    if (lq.ranks) {
        if (look == 0 && atomic_load_explicit(&lq.waiting, memory_order_relaxed) <= 1) {
            lq_outbox_flush();
            lq_poll();
        } else if (look > 0 && atomic_load_explicit(&lq.polls, memory_order_relaxed) == *polls) {
            lq_poll();
        }
        *polls = atomic_load_explicit(&lq.polls, memory_order_relaxed);
    }
    for (; *first < n; (*first)++) {
        if (atomic_load_explicit(&v[*first]->state, memory_order_acquire) == CH_DONE)
            continue; /* lq_status's answer, without the call */
        int r = lq_status(v[*first], call, idle_ok);
        if (r < 0)
            return -1;
        if (r == 0)
            break;
    }
    if (*first == n)
        return 1;
    /* This core cannot go on: what the outboxes hold leaves now, as its
     * partners may need it to go on themselves; what the cores beside it
     * added since the last such look leaves with it, packed. Holding it
     * until every core of the process waited made the two ranks of a
     * 2 x 8 halo take turns, one idle while the other ran its cores
     * (22-25 us against 13-17). */
    if (lq.ranks)
        lq_outbox_flush();
    if (sched_stopped()) {
        lq_seterr(LQCD_ERR_STOPPED, "%s: the run is being stopped", call);
        return -1;
    }
    if (ms == 0) {
        explain(v[*first], call, ms, 1);
        return 0;
    }
    return 2;
}

/* Waits for all of v[0..n) (the caller's, checked). 1 / 0 timeout / -1. */
int lq_wait_all(struct lqcd_chan **v, int n, int ms, const char *call, int idle_ok)
{
    struct ebsp_core *self = ebsp_self; /* read once: a coroutine core may resume on another thread */
    int pid = self->pid;
    struct lqcd_core *c = &lq.cores[pid];
    uint64_t begun = 0, deadline = 0, last_look = 0; /* from the first round that waits on */
    int first = 0, marked = 0, r; /* v[0..first) are complete */
    unsigned polls = 0;
    if (lq.ranks)
        atomic_fetch_add_explicit(&lq.waiting, 1, memory_order_relaxed);
    for (unsigned look = 0;; look++) {
        unsigned ev = atomic_load(&c->ev);
        if ((r = wait_round(v, n, &first, ms, call, idle_ok, look, &polls)) != 2)
            break;
        if (look == 0) {
            begun = ebsp_now_ns();
            deadline = ms > 0 ? begun + (uint64_t)ms * 1000000u : 0;
            last_look = begun - DEADLOCK_LOOK_NS; /* the first sleep looks */
        }
        if (sched_poll_pause(look, begun, lq.ranks != 0))
            continue;
        if (explain(v[first], call, ms, 0)) {
            r = -1;
            break;
        }
        uint64_t slice = sched_poll_slice(lq.ranks != 0);
        if (ms > 0) {
            uint64_t now = ebsp_now_ns();
            if (now >= deadline) {
                explain(v[first], call, ms, 1);
                r = 0;
                break;
            }
            slice = deadline - now < slice ? deadline - now : slice;
        }
        if (!marked)
            mark_waiting(self, c, ms, v[first], call);
        marked = 1;
        atomic_store(&c->waited, v[first]);
        atomic_store(&c->sleeping, 1);
        if (lq_status(v[first], call, idle_ok) == 0) {
            /* every core blocked for good: reported, the run stops (a look
               at every core: at the first sleep of a wait, then every
               DEADLOCK_LOOK_NS) */
            uint64_t now = ebsp_now_ns();
            if (ms < 0 && now - last_look >= DEADLOCK_LOOK_NS) {
                last_look = now;
                if (lq.ranks)
                    lq_deadlock_nudge(); /* rank 0 searches across ranks */
                else
                    lq_deadlock_check();
            }
            /* a coroutine core parks, its worker free for the other cores
               (polling by yielding made a 64 KiB halo exchange 13x slower
               than threads: the pollers kept every worker busy); across
               ranks this core looks for messages itself, each slice */
            if (!sched_stopped())
                sched_wait(&c->ev, ev, slice);
        }
        atomic_store(&c->sleeping, 0);
    }
    if (lq.ranks)
        atomic_fetch_sub_explicit(&lq.waiting, 1, memory_order_relaxed);
    if (marked)
        mark_running(self, c, ms);
    if (r == 1)
        sched_progress();
    return r;
}

int waitFor(void *opaque, int milliseconds)
{
    struct lqcd_chan *ch = lq_chan_of(opaque, "waitFor");
    if (!ch)
        return -1;
    int st = atomic_load(&ch->state);
    if (st == CH_DONE)
        return 1; /* the common case: no more work */
    int r = lq_wait_all(&ch, 1, milliseconds, "waitFor", 0);
    if (r < 0)
        sched_leave_if_stopped();
    return r;
}

int waitForMultiple(void *opaque[], int count, int milliseconds)
{
    if (count < 0 || (count > 0 && !opaque)) {
        lq_seterr(LQCD_ERR_ARG, "waitForMultiple: %s", count < 0 ? "negative count" : "NULL array");
        return -1;
    }
    if ((size_t)count > SIZE_MAX / sizeof *opaque) { /* 32-bit: the bytes do not fit in a size_t */
        lq_seterr(LQCD_ERR_ARG, "waitForMultiple: %d handles do not fit in the address space", count);
        return -1;
    }
    if (!lq_check_memory("waitForMultiple", "the array of handles", opaque, (size_t)count * sizeof *opaque, 0))
        return -1;
    enum { ON_STACK = 64 };
    struct lqcd_chan *local[ON_STACK], **v = local;
    if (count > ON_STACK && !(v = malloc((size_t)count * sizeof *v))) {
        lq_seterr(LQCD_ERR_NOMEM, "waitForMultiple: out of memory");
        return -1;
    }
    int r = 1;
    for (int i = 0; i < count && r == 1; i++)
        if (!(v[i] = lq_chan_of(opaque[i], "waitForMultiple")))
            r = -1;
    if (r == 1)
        r = lqcd_wait_declared((void **)v, count, milliseconds);
    else
        sched_leave_if_stopped();
    if (v != local)
        free(v);
    return r;
}

int lqcd_wait_declared(void *chans[], int count, int milliseconds)
{
    struct lqcd_chan **v = (struct lqcd_chan **)chans;
    int done = 0;
    if (!lq.ranks) /* across ranks the first look may send and take in (wait_round) */
        while (done < count && atomic_load_explicit(&v[done]->state, memory_order_acquire) == CH_DONE)
            done++;
    if (done == count && count > 0) {
        sched_progress(); /* as lq_wait_all's end, without its frame */
        return 1;
    }
    int r = lq_wait_all(v, count, milliseconds, "waitForMultiple", 0);
    if (r < 0)
        sched_leave_if_stopped();
    return r;
}
