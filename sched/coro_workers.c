/*
 * The coroutine scheduler's workers (coro_internal.h): each first worker
 * has a queue of the cores whose home it is, runs them one at a time,
 * takes from the others' queues when its own is empty, and parks and
 * wakes cores. A core switches back to its worker (or straight to the
 * worker's next core) when it yields, parks or finishes.
 */
#define _GNU_SOURCE
#define CORO_STATE_HERE
#include "coro_internal.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#if CORO_SUPPORTED

/* An idle worker spins this long before it sleeps, when the workers fit
 * on the CPUs (another worker's release is then usually microseconds away);
 * else it yields IDLE_YIELDS times. Measured at P=2 (../shared/bench
 * sync_us, 5 alternating launches, busy VM): 0.63-1.41 us with this spin,
 * 1.21-3.02 us without; a parked core spinning on the barrier word before
 * it parks instead: 15-54 us. At P=16 and 64 on 2 workers (per-worker
 * queues, an empty-sync loop): 1.7-1.9 and 4.4-5.2 us with the spin,
 * 2.5 and 6.6-6.8 us with the yields. Each look reads the clock, which
 * also spaces the `pause`s: reading it every 16th look only made the
 * 1024-core sync 114 -> 162 us (a vCPU that runs `pause` back to back is
 * likely descheduled by the hypervisor's pause-loop exiting). */
enum { IDLE_SPIN_NS = 50000, IDLE_YIELDS = 4 };

/* How long a worker may run one core before the others take from its queue. */
enum { STEAL_AFTER_NS = 2000 };

struct coro_sched *const coro_state = &co;

/* Worker context only: on a core, the thread pointer is the core's. */
__thread struct worker *this_worker;
/* The core's own coroutine, in its own TLS: set by its donor (or, for an
 * adopted core 0, on its thread) and stable across switches. */
__thread struct coro *this_coro;

/* Cores queued on every worker. */
int queued_total(void)
{
    int n = 0;
    for (int i = 0; i < co.base_workers; i++)
        n += atomic_load(&co.workers[i].q.queued);
    return n;
}

/* Every first worker runs cores again. The word changes, so a worker about
 * to rest does not sleep through this; it is written only when it changes
 * (every worker reads it at every pick). */
void wake_resting(void)
{
    unsigned all = (unsigned)co.base_workers;
    if (atomic_load(&co.active) != all && atomic_exchange(&co.active, all) != all)
        futex_wake(&co.active, INT_MAX);
}

/* Wakes every sleeping worker, to look at co.live. */
void wake_all_workers(void)
{
    atomic_fetch_add(&co.qseq, 1);
    futex_wake(&co.qseq, INT_MAX);
    wake_resting();
}

static struct coro *pop(struct queue *q)
{
    if (atomic_load(&q->queued) == 0)
        return NULL;
    lock(q);
    struct coro *c = q->head;
    if (c) {
        q->head = c->next;
        if (!q->head)
            q->tail = NULL;
        /* written only under the lock; a fall needs no fence (kick) */
        atomic_store_explicit(&q->queued, atomic_load_explicit(&q->queued, memory_order_relaxed) - 1, memory_order_release);
    }
    unlock(q);
    return c;
}

/* The word q's coro_park cores wait on changed since the first of them
 * parked. Parked cores are in the order they parked, and the word only
 * moves on, so the first one waits for the oldest value. */
static int watch_moved(struct queue *q)
{
    if (atomic_load(&q->watched) == 0)
        return 0;
    unsigned val = atomic_load(&q->watch_val);
    return atomic_load(atomic_load(&co.watch_word)) != val;
}

/* Moves q's parked cores to its run queue: all of them after a
 * coro_wake_parked that q has not seen yet (each looks at its word again:
 * coro_park), those whose word changed after a coro_poke or, for the cores
 * of coro_park, once their word changed. Whoever looks first does the
 * work: its worker when it next picks a core, a thief, or the monitor.
 * Returns how many moved. */
static int unpark(struct queue *q)
{
    unsigned wakes = atomic_load(&co.wakes), pokes = atomic_load(&q->pokes);
    if (atomic_load(&q->wakes_seen) == wakes && atomic_load(&q->pokes_seen) == pokes && !watch_moved(q))
        return 0;
    lock(q);
    int all = atomic_load(&q->wakes_seen) != wakes;
    atomic_store(&q->wakes_seen, wakes);
    atomic_store(&q->pokes_seen, pokes);
    struct coro **link = &q->parked, *first = NULL, *tail = NULL, *kept = NULL;
    int moved = 0, watched = 0;
    while (*link) {
        struct coro *c = *link;
        if (!all && atomic_load(c->park_word) == c->park_val) {
            if (c->watched && watched++ == 0)
                atomic_store_explicit(&q->watch_val, c->park_val, memory_order_relaxed);
            kept = c;
            link = &c->next;
            continue;
        }
        *link = c->next;
        append(&first, &tail, c, c);
        moved++;
    }
    atomic_store_explicit(&q->watched, watched, memory_order_release);
    q->parked_tail = kept;
    q->nparked -= moved;
    if (moved)
        push_locked(q, first, tail, moved);
    unlock(q);
    return moved;
}

/* A core from another worker's queue, when that worker has run the same
 * core since the thief's previous look (seen[], STEAL_AFTER_NS earlier, or
 * before the thief slept). Moving a core costs its stack's and its state's
 * cache lines, more than its own worker takes to run a short step: stealing
 * whatever was queued, the 16-core empty sync took 3.8 us, 3.3 us with this
 * rule (many steals fewer), on the way to the 1.0-1.9 us of the whole. */
static struct coro *steal(struct worker *w, unsigned long *seen)
{
    struct coro *c = NULL;
    for (int i = 1; i <= co.base_workers; i++) {
        struct worker *v = &co.workers[(w->index + i) % co.base_workers];
        if (v == w)
            continue;
        unsigned long s = atomic_load(&v->switches);
        if (!c && s == seen[v->index]) {
            unpark(&v->q);
            c = pop(&v->q);
        }
        seen[v->index] = s;
    }
    return c;
}

/* An added worker's next core: one queued on a worker that still runs the
 * core it ran STEAL_AFTER_NS ago; else NULL, and it leaves. Spinning or
 * sleeping here would keep more threads than CPUs busy: added workers that
 * stayed 20 ms made a 64 KiB LQCD halo exchange 2-3x slower once the
 * monitor had started one during a slow first superstep. */
static struct coro *take_added(struct worker *w)
{
    unsigned long seen[co.base_workers];
    memset(seen, 0xff, sizeof seen);
    steal(w, seen); /* a first look */
    uint64_t until = ebsp_now_ns() + STEAL_AFTER_NS;
    while (atomic_load(&co.live) > 0 && ebsp_now_ns() < until)
        sched_yield();
    return atomic_load(&co.live) > 0 ? steal(w, seen) : NULL;
}

/* A core queued on the queues worker w serves while active workers run
 * cores: its own, and those of the resting workers whose index is its own
 * plus a multiple of active; in turns, from the queue after the one it
 * took the last core from. Looking at its own first every time, it left
 * the cores of a resting worker queued while its own polled by yielding
 * (an LQCD wait's first looks) until they parked: 7 times the yields and
 * parks of one worker in a 16-core halo exchange. */
static struct coro *take_served(struct worker *w, unsigned active)
{
    int served = (co.base_workers - w->index + (int)active - 1) / (int)active;
    for (int k = 0; k < served; k++) {
        int turn = (w->turn + k) % served;
        struct queue *q = &co.workers[w->index + turn * (int)active].q;
        unpark(q);
        struct coro *c = pop(q);
        if (c) {
            w->turn = turn + 1;
            return c;
        }
    }
    return NULL;
}

/* Worker w rests while it is not among the active ones; 0 once every core
 * finished. */
static int rest(struct worker *w)
{
    unsigned active;
    while ((unsigned)w->index >= (active = atomic_load(&co.active))) {
        if (atomic_load(&co.live) == 0)
            return 0;
        futex_wait(&co.active, active);
    }
    return 1;
}

/* The next core for worker w, one of the first: NULL once every core
 * finished. */
static struct coro *take(struct worker *w)
{
    if (w->index >= co.base_workers)
        return take_added(w);
    unsigned long seen[co.base_workers];
    memset(seen, 0xff, sizeof seen);
    uint64_t spin_until = 0, next_look = 0;
    for (int round = 0;; round++) {
        unsigned active = atomic_load(&co.active);
        if ((unsigned)w->index >= active) {
            if (!rest(w))
                return NULL;
            round = -1;
            continue;
        }
        struct coro *c = take_served(w, active);
        if (c)
            return c;
        if (atomic_load(&co.live) == 0)
            return NULL;
        uint64_t now = ebsp_now_ns();
        if (now >= next_look) {
            if ((c = steal(w, seen)) != NULL)
                return c;
            next_look = now + STEAL_AFTER_NS;
        }
        if (co.spin_idle) {
            if (round == 0)
                spin_until = now + IDLE_SPIN_NS;
            if (now < spin_until) {
                cpu_relax();
                continue;
            }
        } else if (round < IDLE_YIELDS) {
            sched_yield();
            continue;
        }
        unsigned seq = atomic_load(&co.qseq);
        atomic_fetch_add(&co.idle, 1);
        for (int i = w->index; i < co.base_workers; i += (int)active)
            unpark(&co.workers[i].q);
        if (queued_total() == 0 && atomic_load(&co.live) > 0 && atomic_load(&co.active) == active)
            futex_wait(&co.qseq, seq);
        atomic_fetch_sub(&co.idle, 1);
        memset(seen, 0xff, sizeof seen);
        round = -1;
    }
}

/* The worker's decision for a core that switched back to it. A parked core
 * checks its word again under its queue's lock, which unpark takes after it
 * saw the wake count that coro_wake_parked raised after the word changed:
 * either the core sees the new word or unpark sees the core. */
static void settle(struct worker *w, struct coro *c)
{
    if (c->action == CO_DONE || c->action == CO_JOIN) {
        if (c->action == CO_JOIN)
            co.joiner = c;
        if (atomic_fetch_sub(&co.live, 1) == 1) {
            wake_all_workers(); /* they leave */
            if (co.adopted) {
                atomic_store(&co.ended, 1);
                futex_wake(&co.ended, INT_MAX);
            }
        }
        return;
    }
    struct queue *q = home_of(c);
    lock(q);
    if (c->action == CO_PARK && atomic_load(c->park_word) == c->park_val) {
        append(&q->parked, &q->parked_tail, c, c);
        q->nparked++;
        if (c->watched) { /* under the lock: plain stores, in this order */
            int n = atomic_load_explicit(&q->watched, memory_order_relaxed);
            if (n == 0)
                atomic_store_explicit(&q->watch_val, c->park_val, memory_order_relaxed);
            atomic_store_explicit(&q->watched, n + 1, memory_order_release);
        }
        unlock(q);
        /* On another worker than q's (a stolen core), the word may have
           changed after the look above while q's worker looked at q before
           the count above, and slept: look again. q's own worker looks at
           q next anyway (take). */
        if (c->watched && q != &w->q) {
            atomic_thread_fence(memory_order_seq_cst);
            if (atomic_load(c->park_word) != c->park_val && unpark(q))
                kick(1);
        }
        return;
    }
    push_locked(q, c, c, 1); /* yielded, or its word changed meanwhile */
    unlock(q);
    kick(1);
}

/* Makes c the core worker w runs, and its thread control block the
 * current one: from here to the switch the code in between runs with c's
 * TLS (it touches none). Only the worker writes cur and switches; the
 * others (thieves, the monitor) only read them, so release stores do,
 * without a locked instruction (three of them were a tenth of an empty
 * sync on one worker). */
static void enter(struct worker *w, struct coro *c)
{
    c->worker = w;
    c->core->thread = w->self; /* where the watchdog's signal finds it */
    atomic_store_explicit(&w->cur, c, memory_order_release);
    atomic_store_explicit(&w->switches, atomic_load_explicit(&w->switches, memory_order_relaxed) + 1, memory_order_release);
    tls_switch(c->tp);
}

/* Runs core c on worker w until a core switches back: c, or a core c
 * handed the worker over to (hand_over). */
static void run_one(struct worker *w, struct coro *c)
{
    enter(w, c);
    ebsp_coro_switch(&w->sp, c->sp);
    c = atomic_load_explicit(&w->cur, memory_order_relaxed);
    atomic_store_explicit(&w->cur, NULL, memory_order_release);
    settle(w, c);
}

void *worker_main(void *arg)
{
    struct worker *w = arg;
    w->self = pthread_self(); /* w->thread may not be stored yet */
    w->tp = tls_pointer();
    this_worker = w;
    hooks_thread_begin(); /* binds the thread to Go before any core's call */
    struct coro *c;
    while ((c = take(w)) != NULL)
        run_one(w, c);
    hooks_thread_end();
    this_worker = NULL;
    atomic_store(&w->state, W_EXITED);
    return NULL;
}

/* The adopting thread once it handed core 0 to the workers (coro_go), on
 * a stack slice of its own: waits until every core finished, then goes
 * back to core 0 if it waits for that (coro_unadopt). If core 0 left for
 * good (coro_leave: a stopped run, which the library ends on another
 * thread) the thread has nothing left to do. */
void handoff_main(void *arg)
{
    (void)arg;
    /* Core 0 runs on the workers with this thread's TLS: meanwhile the
     * thread touches none of it (no signal handler, no errno). */
    tls_block_signals(&co.adopter_mask);
    struct coro *c = &co.coros[0];
    struct queue *q = home_of(c);
    lock(q);
    push_locked(q, c, c, 1);
    unlock(q);
    kick(1);
    futex_wait_quiet(&co.ended, 0);
    if (co.joiner) {
        void *unused;
        co.joiner->worker = NULL; /* on its own thread again */
        tls_slot_store(tls_pointer(), co.adopter_slot);
        tls_restore_signals(&co.adopter_mask);
        ebsp_coro_switch(&unused, co.joiner->sp);
    }
    for (;;)
        futex_wait_quiet(&co.ended, 1);
}

static struct worker *current_worker(void)
{
    struct coro *c = this_coro;
    return c ? c->worker : NULL;
}

/* After a switch into a core: the core that handed its worker over to
 * this one is settled now that nothing runs on its stack. */
static void settle_handed(void)
{
    struct worker *w = current_worker();
    struct coro *c = w ? w->handed : NULL;
    if (c) {
        w->handed = NULL;
        settle(w, c);
    }
}

/* The next core for a first worker whose core parks: one queued on it, or
 * woken by the park (a barrier's last core released the others). Switching
 * to it straight from the parking core saves the switch through the
 * worker's loop: an empty sync of 8 cores on one worker took 0.66-0.95 us
 * through the loop, 0.56-0.68 us this way. The worker's loop does the
 * rest: steals, spins, sleeps, rests. */
static struct coro *hand_over(struct worker *w)
{
    unsigned active = atomic_load_explicit(&co.active, memory_order_relaxed);
    if (w->index >= co.base_workers || (unsigned)w->index >= active)
        return NULL;
    return take_served(w, active);
}

/* Switches from the calling core to the next one of its worker, or back
 * to the worker. */
static void back_to_worker(struct coro *c, int action)
{
    c->action = action;
    struct worker *w = c->worker;
    struct coro *next = action == CO_PARK ? hand_over(w) : NULL;
    if (next) {
        w->handed = c;
        enter(w, next);
        ebsp_coro_switch(&c->sp, next->sp);
    } else {
        tls_switch(w->tp);
        ebsp_coro_switch(&c->sp, w->sp);
    }
    settle_handed();
}

int coro_current(void)
{
    return current_coro() != NULL;
}

int coro_owns_cpus(void)
{
    return co.owns_cpus;
}

int coro_yield(void)
{
    struct coro *c = current_coro();
    if (!c)
        return 0;
    back_to_worker(c, CO_YIELD);
    return 1;
}

void coro_park(_Atomic unsigned *word, unsigned val)
{
    struct coro *c = current_coro();
    while (atomic_load(word) == val) {
        if (atomic_load_explicit(&co.watch_word, memory_order_relaxed) != word)
            atomic_store(&co.watch_word, word); /* the same at every call */
        c->park_word = word;
        c->park_val = val;
        c->watched = 1;
        back_to_worker(c, CO_PARK);
        c->watched = 0;
    }
}

int coro_wait(_Atomic unsigned *word, unsigned val)
{
    struct coro *c = current_coro();
    if (!c)
        return 0;
    atomic_fetch_add(&co.timed, 1);
    if (atomic_load(word) == val) {
        c->park_word = word;
        c->park_val = val;
        c->watched = 0;
        back_to_worker(c, CO_PARK);
    }
    atomic_fetch_sub(&co.timed, 1);
    return 1;
}

/* Wakes every parked core: each worker moves its own when it next picks a
 * core (unpark), so a wake-up costs the other workers one cache line and
 * the waker no lock. */
void coro_wake_parked(void)
{
    if (!co.coros)
        return;
    atomic_fetch_add(&co.wakes, 1);
    kick(INT_MAX);
}

void coro_poke(int i)
{
    if (!co.coros || i < 0 || i >= co.n)
        return;
    atomic_fetch_add(&home_of(&co.coros[i])->pokes, 1);
    kick(INT_MAX);
}

void coro_kick(void)
{
    if (co.coros)
        kick(INT_MAX);
}

void coro_poke_all(void)
{
    if (!co.coros)
        return;
    for (int i = 0; i < co.base_workers; i++)
        atomic_fetch_add(&co.workers[i].q.pokes, 1);
    kick(INT_MAX);
}

void coro_entry(struct coro *c)
{
    settle_handed();
    co.run_core(c->core);
    back_to_worker(c, CO_DONE);
    __builtin_unreachable();
}

/* Out of line, for the other files: they run once per run or per tick,
 * while the calls above stay inline on the switches. */

void settle_after_switch(void)
{
    settle_handed();
}

void switch_away(struct coro *c, int action)
{
    back_to_worker(c, action);
}

int unpark_all(void)
{
    int woken = 0;
    for (int i = 0; i < co.base_workers; i++)
        woken += unpark(&co.workers[i].q);
    return woken;
}

#endif /* CORO_SUPPORTED */
