/*
 * The coroutine scheduler (EBSP_SCHED=coro): cores run as coroutines on a
 * few worker threads (default: one per CPU) and a core that waits yields
 * its worker to another core instead of blocking it. The barrier itself,
 * host sync, the waits, stopping and the watchdog stay in sched_run.c, which calls
 * in here to start the cores, to park a waiting core and to wake the
 * parked ones; this file only runs coroutines.
 *
 * Stacks. Go accepts a callback (C calling an exported Go function) from a
 * coroutine cheaply only when the stack pointer lies inside the bounds
 * pthread_getattr_np reports for the thread (runtime/cgocall.go,
 * callbackUpdateSystemStack); elsewhere each callback costs ~650 ns or
 * dies with "morestack on g0". And any worker must be able to resume any
 * core, or a core spinning on memory another core writes would starve it.
 * So one region R holds everything:
 *
 *   R.base: [core 0 stack][core 1 stack]...[core n-1][worker 0][worker 1]...
 *
 * and worker i is started with pthread_attr_setstack(R.base, n*S + (i+1)*W):
 * every worker's stack, as glibc and Go see it, contains every core stack,
 * while the worker's own frames (and glibc's thread control block, which
 * sits at the top of a user-supplied stack) stay in its own W-sized slice.
 * Each stack and slice starts with a guard page, so an overflow faults (and
 * faults.c reports the core) instead of running into a neighbour.
 *
 * Switching happens only in C, never with a Go frame on the coroutine's
 * stack: bsp_sync already runs the engine's steps from C with the barrier
 * between them (core_api.c). The Go runtime sees plain C calls.
 *
 * Starvation. A real Epiphany program may spin on memory another core
 * writes (`while (*flag == 0);` with bsp_hpput). Such a core never
 * yields. A monitor thread (like Go's
 * sysmon) starts one more worker whenever every worker has run the same
 * core for MONITOR_STUCK_TICKS ticks while other cores wait to run, so the
 * core spun on gets a CPU as it would under threads, at worst at the
 * price of one thread per core. An added worker takes only cores queued
 * behind such a stuck core and leaves as soon as there are none.
 *
 * Thread identity. Cores migrate between workers, but each core has a
 * thread control block of its own (coro_tls.c) that the worker running it
 * makes current: its TLS (sched_self, this_coro, the program's __thread
 * variables, errno) stays put, so a TLS address may be kept across a
 * switch. Worker state is in the worker's own TLS (this_worker), read
 * only in worker context; on a core the worker is this_coro->worker.
 *
 * Only x86-64 has the switch (coro_switch_amd64.S); elsewhere, and in
 * builds with AddressSanitizer (which cannot follow the stack switches
 * without annotations), cores stay threads.
 */
#define _GNU_SOURCE
#include "coro.h"
#include "coro_tls.h"
#include "futex.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__)
#define CORO_SUPPORTED 1
#else
#define CORO_SUPPORTED 0
#endif

/* Defaults shared with sched_run.c's choice. */
int coro_supported(void)
{
    return CORO_SUPPORTED;
}

void *sched_map_stacks(size_t bytes)
{
    int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK;
#ifdef MAP_32BIT
    void *low = mmap(NULL, bytes, PROT_READ | PROT_WRITE, flags | MAP_32BIT, -1, 0);
    if (low != MAP_FAILED)
        return low;
#endif
    void *any = mmap(NULL, bytes, PROT_READ | PROT_WRITE, flags, -1, 0);
    return any == MAP_FAILED ? NULL : any;
}

#if CORO_SUPPORTED

void ebsp_coro_switch(void **save_sp, void *load_sp);
void ebsp_coro_boot(void);

/* CO_JOIN: the adopted core waits for every other core to finish
 * (coro_unadopt), then goes back to its own thread. */
enum { CO_YIELD = 1, CO_PARK, CO_DONE, CO_JOIN };

struct coro {
    void *sp;                  /* saved stack pointer while switched out */
    void *tp;                  /* its thread control block (coro_tls.h) */
    struct worker *worker;     /* the worker that runs it, NULL while none can */
    struct sched_core *core;
    struct coro *next;         /* in a run queue or a parked list */
    int action;                /* what the worker does after the core switched back */
    int home;                  /* the worker whose queue and parked list it joins */
    _Atomic unsigned *park_word;
    unsigned park_val;         /* parked until *park_word != park_val */
    int watched;               /* parked by coro_park: its worker watches the word */
} __attribute__((aligned(64))); /* a line each: workers write their cores' */

/* Worker slots: a slot's stack slice is reused only after its previous
 * thread was joined (glibc keeps the thread control block in it). */
enum { W_FREE = 0, W_RUNNING, W_EXITED };

/* A first worker's cores: the runnable ones (FIFO) and the parked ones
 * (FIFO too, so that a wake-up keeps the order in which they parked), under
 * the worker's own lock. Each core has a home worker and goes back to its
 * queue whenever it yields or parks, wherever it ran: the cores of one
 * worker stay on one CPU's caches and the workers touch each other's lines
 * only to steal or to wake (measured on a 2-vCPU EPYC VM, one run queue
 * for all: 10 us per empty 16-core sync, against 1.2 us with one worker). */
struct queue {
    atomic_flag lock;
    int nparked;
    struct coro *head, *tail;
    struct coro *parked, *parked_tail;
    _Atomic unsigned wakes_seen; /* co.wakes when its parked cores were last woken */
    _Atomic unsigned pokes;    /* coro_poke calls for its cores */
    _Atomic unsigned pokes_seen;
    _Atomic int queued;        /* length of the run queue */
    /* The parked cores of coro_park (co.watch_word): how many, and the
     * value the first one waits to change. */
    _Atomic int watched;
    _Atomic unsigned watch_val;
}; /* one cache line */

struct worker {
    struct queue q;            /* empty for the workers the monitor adds */
    void *sp;                  /* the worker's scheduling loop while a core runs */
    void *tp;                  /* its own thread control block */
    pthread_t thread, self;    /* as its creator and as the thread itself saw it */
    int index;
    _Atomic int state;         /* W_FREE, W_RUNNING, W_EXITED (not yet joined) */
    struct coro *_Atomic cur;  /* the core it runs, NULL between cores */
    _Atomic unsigned long switches;
    _Atomic unsigned long steps; /* coro_progress of the cores it ran */
    int turn;                  /* the served queue to look at first (take_served) */
    struct coro *handed;       /* a core that parked by switching to the next one
                                  (hand_over), for that one to settle */
} __attribute__((aligned(64)));

/* Worker slice: own frames, the thread control block and static TLS. */
enum { WORKER_STACK = 256 * 1024 };
/* Monitor period and how many periods without a switch make a worker stuck. */
enum { MONITOR_TICK_US = 1000, MONITOR_STUCK_TICKS = 3 };
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

/*
 * Resting workers. Cores spread over two CPUs pay for every barrier with
 * cache lines moved between them: on the 2-vCPU VM of 2026-11-25 an empty
 * sync took 0.17 us at P=2, 1.1 us at 16 and 5.5 us at 64 on one worker,
 * against 0.89, 2.5 and 8.5 us on two; a superstep with work in it goes
 * nearly twice as fast on two. Which is better cannot be told from the
 * workers' busy time (spread, they are busy with the misses), so the
 * monitor tries: over windows of BALANCE_TICKS ticks it counts barrier
 * rounds (coro_count_rounds) and, every few windows, runs one window the
 * other way, all cores on the first worker (the others rest, and it serves
 * their queues) or spread again; the way that made BALANCE_WIN times more
 * rounds stays. A try that lost doubles the windows until the next one (up
 * to BALANCE_MAX_BACKOFF), one that won resets them, and so does a window
 * whose rate differs from the last one of its way by BALANCE_CHANGE times
 * (the program changed phase). Rounds longer than BALANCE_MAX_ROUND_NS
 * spread the cores and stop the tries: a barrier costs a few microseconds
 * more spread, and such rounds have work that two CPUs do in half the
 * time; so does a tick without a round while resting (a phase of
 * messages or compute began). The cores' steps between barriers
 * (coro_progress: LQCD and QMP waits that ended) count as rounds too, n
 * steps a round: a 16-core halo exchange of 8 bytes, which has none, took
 * 5 times the CPU time spread as on one worker (cores on one worker
 * waiting for cores on the other, idle spins and wakes), and a loaded
 * machine's time with it. A worker stuck on one core while cores wait
 * wakes the resting workers at once, before the monitor adds one.
 */
enum { BALANCE_TICKS = 8, BALANCE_MAX_ROUND_NS = 20000, BALANCE_MIN_BACKOFF = 2, BALANCE_MAX_BACKOFF = 16 };
/* The same for rounds of steps: the messages of a 16-core halo exchange of
 * 8 bytes to 1 KiB make rounds of 10-40 us, faster on one worker; of
 * 64 KiB, rounds of milliseconds of copying, which two CPUs share. */
enum { BALANCE_MAX_STEP_ROUND_NS = 200000 };
#define BALANCE_WIN 1.1
#define BALANCE_CHANGE 1.5

/* How long a worker may run one core before the others take from its queue. */
enum { STEAL_AFTER_NS = 2000 };


static struct {
    char *region;
    size_t region_size, stack_size, page;
    struct coro *coros;        /* [n], index = pid */
    int n;
    void (*run_core)(struct sched_core *);
    struct worker *workers;    /* [max_workers] */
    int max_workers;
    _Atomic int nworkers;      /* slots ever used: 0..nworkers-1 */
    int base_workers;          /* the first workers, homes of the cores */
    int spin_idle;
    int may_rest;              /* the worker count was not set (EBSP_WORKERS), nor EBSP_REST=0 */
    int rest_always;           /* EBSP_REST=1 */
    _Atomic unsigned active;   /* first workers that run cores; the others rest
                                  (futex word), their queues served by these */
    _Atomic unsigned *rounds;  /* the barrier's rounds (coro_count_rounds) */
    _Atomic int live;          /* cores not yet finished */
    _Atomic unsigned qseq __attribute__((aligned(64))); /* futex word of idle workers */
    _Atomic int idle;
    _Atomic int timed;         /* cores parked in coro_wait */
    _Atomic unsigned wakes __attribute__((aligned(64))); /* coro_wake_parked calls */
    _Atomic unsigned *_Atomic watch_word; /* the word of every coro_park */
    pthread_t monitor;
    _Atomic int monitor_stop;
    int monitor_started;
    /* Core 0 is the calling thread's (coro_start with first 1): the
     * adopter, whose stack is adopter_stack [lo, hi), hands it to the
     * workers and waits (handoff_main) on `ended` until every core
     * finished; joiner is core 0 once it waits to go back there. */
    int adopted;
    struct coro *joiner;
    pthread_t adopter;
    uintptr_t adopter_stack[2];
    void *handoff_sp;
    uintptr_t adopter_slot;    /* its kept slot (sched_keep_thread_slot), restored for core 0 */
    uint64_t adopter_mask;     /* its signal mask, all blocked while it lends its TLS to core 0 */
    _Atomic unsigned ended;
    /* The threads that lend cores their thread control blocks: one per
     * core, but an adopted core 0, which keeps its own thread's. */
    struct tls_donor *donors;
    int ndonors;
} co;

/* Worker context only: on a core, the thread pointer is the core's. */
static __thread struct worker *this_worker;
/* The core's own coroutine, in its own TLS: set by its donor (or, for an
 * adopted core 0, on its thread) and stable across switches. */
static __thread struct coro *this_coro;

static void lock(struct queue *q)
{
    for (int i = 0; atomic_flag_test_and_set_explicit(&q->lock, memory_order_acquire); i++)
        if (i >= 64)
            sched_yield(); /* the holder's thread was preempted */
        else
            cpu_relax();
}

static void unlock(struct queue *q)
{
    atomic_flag_clear_explicit(&q->lock, memory_order_release);
}

static struct queue *home_of(const struct coro *c)
{
    return &co.workers[c->home].q;
}

/* Appends the list first..last to the list head..tail. */
static void append(struct coro **head, struct coro **tail, struct coro *first, struct coro *last)
{
    last->next = NULL;
    if (*tail)
        (*tail)->next = first;
    else
        *head = first;
    *tail = last;
}

/* Appends the list first..last to q's run queue (locked). */
static void push_locked(struct queue *q, struct coro *first, struct coro *last, int count)
{
    append(&q->head, &q->tail, first, last);
    atomic_fetch_add(&q->queued, count);
}

/* Cores queued on every worker. */
static int queued_total(void)
{
    int n = 0;
    for (int i = 0; i < co.base_workers; i++)
        n += atomic_load(&co.workers[i].q.queued);
    return n;
}

/* Tells idle workers that cores were queued. The queue's count was raised
 * before (a sequentially consistent read-modify-write), and an idle worker
 * counts itself idle before it looks at the counts: one of the two sees the
 * other. */
static void kick(int count)
{
    if (atomic_load(&co.idle) > 0) {
        atomic_fetch_add(&co.qseq, 1);
        futex_wake(&co.qseq, count);
    }
}

/* Every first worker runs cores again. The word changes, so a worker about
 * to rest does not sleep through this; it is written only when it changes
 * (every worker reads it at every pick). */
static void wake_resting(void)
{
    unsigned all = (unsigned)co.base_workers;
    if (atomic_load(&co.active) != all && atomic_exchange(&co.active, all) != all)
        futex_wake(&co.active, INT_MAX);
}

/* Wakes every sleeping worker, to look at co.live. */
static void wake_all_workers(void)
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

static void *worker_main(void *arg)
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
static void handoff_main(void *arg)
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

static struct coro *current_coro(void)
{
    struct coro *c = this_coro;
    return c && c->worker ? c : NULL;
}

int coro_current(void)
{
    return current_coro() != NULL;
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

static void coro_entry(struct coro *c)
{
    settle_handed();
    co.run_core(c->core);
    back_to_worker(c, CO_DONE);
    __builtin_unreachable();
}

/* Starts a worker in the lowest free slot. Called by coro_start and then
 * only by the monitor, so slots are never claimed twice. */
static int start_worker(void)
{
    int i = 0;
    while (i < co.max_workers && atomic_load(&co.workers[i].state) == W_RUNNING)
        i++;
    if (i >= co.max_workers)
        return -1;
    struct worker *w = &co.workers[i];
    if (atomic_load(&w->state) == W_EXITED)
        pthread_join(w->thread, NULL);
    memset(w, 0, sizeof *w);
    w->index = i;
    atomic_store(&w->state, W_RUNNING);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstack(&attr, co.region, (size_t)co.n * co.stack_size + (size_t)(i + 1) * WORKER_STACK);
    int r = pthread_create(&w->thread, &attr, worker_main, w);
    pthread_attr_destroy(&attr);
    if (r != 0) {
        atomic_store(&w->state, W_FREE);
        return -1;
    }
    if (i + 1 > atomic_load(&co.nworkers))
        atomic_store(&co.nworkers, i + 1);
    return 0;
}

/* The monitor's view of the windows (see "Resting workers"). */
struct balance {
    uint64_t since;            /* the window's start */
    unsigned rounds;           /* *co.rounds at the window's start */
    unsigned tick_rounds;      /* *co.rounds at the last tick */
    unsigned long steps, tick_steps; /* steps_made at the window's start, the last tick */
    int ticks;
    double rate[2];            /* rounds per ns, last measured resting [0] and spread [1] */
    int probing;               /* this window tries the other way */
    int backoff, left;         /* windows between tries, and until the next */
};

/* The cores' steps between barriers (coro_progress). */
static unsigned long steps_made(void)
{
    unsigned long steps = 0; /* of the first workers: the others' slots are reused */
    for (int i = 0; i < co.base_workers; i++)
        steps += atomic_load_explicit(&co.workers[i].steps, memory_order_relaxed);
    return steps;
}

/* The barrier's rounds and, as rounds of n steps each, the steps. */
static unsigned rounds_of(unsigned long steps)
{
    return atomic_load(co.rounds) + (unsigned)(steps / (unsigned long)co.n);
}

void coro_progress(void)
{
    struct coro *c = current_coro();
    if (!c)
        return;
    struct worker *w = c->worker;
    atomic_store_explicit(&w->steps, atomic_load_explicit(&w->steps, memory_order_relaxed) + 1, memory_order_relaxed);
}

/* Rates a and b differ by more than BALANCE_CHANGE times. */
static int changed(double a, double b)
{
    return a > BALANCE_CHANGE * b || b > BALANCE_CHANGE * a;
}

static void set_resting(int resting)
{
    if (!resting)
        wake_resting();
    else if (atomic_load(&co.active) != 1)
        atomic_store(&co.active, 1);
}

/* Starts a new window, spread, trying to rest again soon. */
static void spread_again(struct balance *b, uint64_t now, unsigned rounds, unsigned long steps)
{
    set_resting(0);
    b->since = now;
    b->rounds = rounds;
    b->steps = steps;
    b->ticks = 0;
    b->probing = 0;
    b->backoff = b->left = BALANCE_MIN_BACKOFF;
}

/* Every tick: a resting run that made no round nor step in a tick has
 * long rounds (waits for messages, compute) and spreads at once. Once a
 * window: keeps the way (resting or spread) that made more rounds. A
 * window of steps is a phase of messages, whose rounds may be longer than
 * a superstep's and still faster on one worker (cores that wait for each
 * other across CPUs): their own limit, BALANCE_MAX_STEP_ROUND_NS. */
static void balance(struct balance *b)
{
    unsigned long steps = steps_made();
    unsigned rounds = rounds_of(steps);
    uint64_t now = ebsp_now_ns();
    int still = rounds == b->tick_rounds && steps == b->tick_steps;
    b->tick_rounds = rounds;
    b->tick_steps = steps;
    if (co.rest_always) {
        if (++b->ticks >= BALANCE_TICKS) {
            b->ticks = 0;
            set_resting(1);
        }
        return;
    }
    if (still && atomic_load(&co.active) == 1) {
        spread_again(b, now, rounds, steps);
        return;
    }
    if (++b->ticks < BALANCE_TICKS)
        return;
    b->ticks = 0;
    double window = (double)(now - b->since), made = (double)(rounds - b->rounds);
    int stepped = steps != b->steps;
    b->since = now;
    b->rounds = rounds;
    b->steps = steps;
    int spread = atomic_load(&co.active) > 1;
    if (window <= 0 || made * (stepped ? BALANCE_MAX_STEP_ROUND_NS : BALANCE_MAX_ROUND_NS) < window) {
        /* long rounds: what the barriers cost does not matter, the CPUs do */
        spread_again(b, now, rounds, steps);
        return;
    }
    double rate = made / window;
    if (!b->probing && changed(rate, b->rate[spread])) {
        b->backoff = BALANCE_MIN_BACKOFF; /* another phase of the program: try soon */
        if (b->left > 1)
            b->left = 1;
    }
    b->rate[spread] = rate;
    if (b->probing) {
        b->probing = 0;
        if (b->rate[spread] > BALANCE_WIN * b->rate[!spread]) {
            b->backoff = BALANCE_MIN_BACKOFF; /* the try won: stay */
        } else {
            set_resting(spread); /* back */
            b->backoff = b->backoff * 2 > BALANCE_MAX_BACKOFF ? BALANCE_MAX_BACKOFF : b->backoff * 2;
        }
        b->left = b->backoff;
        return;
    }
    if (--b->left <= 0) {
        set_resting(spread);
        b->probing = 1;
    }
}

static void *monitor_main(void *arg)
{
    (void)arg;
    unsigned long last[co.max_workers > 0 ? co.max_workers : 1];
    int still[co.max_workers > 0 ? co.max_workers : 1];
    memset(still, 0, sizeof still);
    for (int i = 0; i < co.max_workers; i++)
        last[i] = ~0ul;
    struct balance b = {.since = ebsp_now_ns(), .backoff = BALANCE_MIN_BACKOFF, .left = BALANCE_MIN_BACKOFF};
    if (co.rounds) {
        b.steps = b.tick_steps = steps_made();
        b.rounds = b.tick_rounds = rounds_of(b.steps);
    }
    struct timespec tick = {0, MONITOR_TICK_US * 1000L};
    while (!atomic_load(&co.monitor_stop)) {
        nanosleep(&tick, NULL);
        int nw = atomic_load(&co.nworkers);
        int all_stuck = nw > 0;
        unsigned active = atomic_load(&co.active);
        for (int i = 0; i < nw; i++) {
            struct worker *w = &co.workers[i];
            if ((i < co.base_workers && (unsigned)i >= active) || atomic_load(&w->state) != W_RUNNING) {
                still[i] = 0;
                last[i] = ~0ul;
                continue;
            }
            unsigned long s = atomic_load(&w->switches);
            if (atomic_load(&w->cur) == NULL || s != last[i])
                still[i] = 0;
            else
                still[i]++;
            last[i] = s;
            if (still[i] < MONITOR_STUCK_TICKS)
                all_stuck = 0;
        }
        if (all_stuck && queued_total() > 0 && atomic_load(&co.idle) == 0) {
            if (active < (unsigned)co.base_workers)
                wake_resting();
            else
                start_worker();
        }
        if (co.may_rest && co.rounds)
            balance(&b);
        if (atomic_load(&co.timed) > 0)
            coro_wake_parked(); /* their callers look at the clock */
        /* cores woken while their worker runs on: visible to the others */
        int woken = 0;
        for (int i = 0; i < co.base_workers; i++)
            woken += unpark(&co.workers[i].q);
        if (woken)
            kick(INT_MAX);
    }
    return NULL;
}

/* EBSP_WORKERS (ebsp_workers), default this process's share of the CPUs (cpu_count), never more than
 * the cores. */
static int worker_count(int cores)
{
    long n = ebsp_workers;
    if (n < 1)
        n = cpu_count();
    return n > cores ? cores : (int)n;
}

static int real_getattr_np(pthread_t thread, pthread_attr_t *attr);

/* The frame ebsp_coro_switch pops on the stack [lo, lo + size): r15 r14
 * r13 r12 rbx rbp, then a return into ebsp_coro_boot with rsp 16-byte
 * aligned, which calls fn(arg). */
static void *boot_frame(char *lo, size_t size, void (*fn)(void *), void *arg)
{
    uintptr_t top = ((uintptr_t)(lo + size) & ~(uintptr_t)15) - 16;
    void **sp = (void **)(top - 7 * sizeof(void *));
    sp[0] = sp[1] = sp[2] = NULL;
    sp[3] = (void *)fn;  /* r12 */
    sp[4] = arg;         /* rbx */
    sp[5] = NULL;        /* rbp */
    sp[6] = (void *)ebsp_coro_boot;
    return sp;
}

/* Core 0 is the calling thread's code, on the thread's own stack. From
 * coro_go on it runs on the workers like any core (its stack is in the
 * bounds they report to Go: pthread_getattr_np below), while the thread
 * waits on a slice of its own (handoff_main) to take it back at the end.
 * Running other cores on the calling thread instead cost a Go look-up of
 * the stack bounds (for the main thread, a read of /proc/self/maps) at
 * nearly every Go call of a core on it: Go restores a thread's first
 * bounds after each callback, and those were the thread's own stack. */
static void adopt(void)
{
    co.adopted = 1;
    co.adopter = pthread_self();
    co.coros[0].tp = tls_pointer();
    this_coro = &co.coros[0];
    pthread_attr_t attr;
    void *addr;
    size_t size;
    if (real_getattr_np(co.adopter, &attr) == 0) {
        if (pthread_attr_getstack(&attr, &addr, &size) == 0) {
            co.adopter_stack[0] = (uintptr_t)addr;
            co.adopter_stack[1] = (uintptr_t)addr + size;
        }
        pthread_attr_destroy(&attr);
    }
    co.handoff_sp = boot_frame(co.region + (size_t)co.n * co.stack_size + (size_t)co.max_workers * WORKER_STACK,
                               WORKER_STACK, handoff_main, NULL);
}

/* On donor i: the TLS of core first + i, where first is the adopted
 * core 0's count. */
static void donor_init(int i, void *arg)
{
    struct coro *c = &co.coros[*(int *)arg + i];
    this_coro = c;
    sched_self = c->core;
}

/* A donor per core but an adopted core 0; -1 without threads. */
static int start_donors(int adopting)
{
    co.ndonors = co.n - adopting;
    co.donors = calloc((size_t)co.ndonors, sizeof *co.donors);
    if (!co.donors || tls_donors_start(co.donors, co.ndonors, donor_init, &adopting) != 0) {
        free(co.donors);
        co.donors = NULL;
        co.ndonors = 0;
        return -1;
    }
    for (int i = 0; i < co.ndonors; i++)
        co.coros[adopting + i].tp = co.donors[i].tp;
    return 0;
}

static void end_donors(void)
{
    if (!co.donors)
        return;
    tls_donors_end(co.donors, co.ndonors);
    free(co.donors);
    co.donors = NULL;
    co.ndonors = 0;
}

int coro_start(struct sched_core *cores, size_t stride, int n, int first, size_t stack_size,
               void (*run_core)(struct sched_core *))
{
    if (first > 1)
        return -1;
    int adopting = first == 1, count = n;
    memset(&co, 0, sizeof co);
    co.page = (size_t)sysconf(_SC_PAGESIZE);
    co.stack_size = (stack_size + co.page - 1) & ~(co.page - 1);
    co.n = count;
    co.run_core = run_core;
    co.base_workers = worker_count(count);
    co.max_workers = count + 1; /* the monitor's bound: one per core, as threads */
    co.spin_idle = co.base_workers <= cpu_count();
    co.may_rest = ebsp_rest != REST_NEVER && ebsp_workers < 1 && co.base_workers > 1;
    co.rest_always = ebsp_rest == REST_ALWAYS;
    atomic_store(&co.active, (unsigned)co.base_workers);

    /* an adopting thread's slice after the workers' */
    co.region_size = (size_t)count * co.stack_size + (size_t)(co.max_workers + adopting) * WORKER_STACK;
    void *r = sched_map_stacks(co.region_size);
    co.coros = calloc((size_t)count, sizeof *co.coros);
    co.workers = calloc((size_t)co.max_workers, sizeof *co.workers);
    if (!r || !co.coros || !co.workers) {
        if (r)
            munmap(r, co.region_size);
        free(co.coros);
        free(co.workers);
        memset(&co, 0, sizeof co);
        return -1;
    }
    co.region = r;
    for (int i = 0; i < count; i++) {
        char *lo = co.region + (size_t)i * co.stack_size;
        mprotect(lo, co.page, PROT_NONE);
        struct coro *c = &co.coros[i];
        c->core = sched_core_at(cores, stride, i);
        c->home = coro_home(i);
        if (i > 0 || !adopting) /* an adopted core 0 runs on its thread's stack */
            c->sp = boot_frame(lo, co.stack_size, (void (*)(void *))coro_entry, c);
    }
    for (int i = 0; i < co.max_workers + adopting; i++)
        mprotect(co.region + (size_t)count * co.stack_size + (size_t)i * WORKER_STACK, co.page, PROT_NONE);
    atomic_store(&co.live, count);
    if (start_donors(adopting) != 0) {
        munmap(co.region, co.region_size);
        free(co.coros);
        free(co.workers);
        memset(&co, 0, sizeof co);
        return -1;
    }
    if (adopting)
        adopt(); /* before the workers: their first Go call reads its stack's bounds */
    int started = 0;
    while (started < co.base_workers && start_worker() == 0)
        started++;
    if (started < co.base_workers) {
        coro_cancel();
        return -1;
    }
    return started;
}

/* Homes in blocks of consecutive pids: mesh neighbours mostly together. */
int coro_home(int pid)
{
    return (int)((long)pid * co.base_workers / co.n);
}

void coro_count_rounds(_Atomic unsigned *rounds)
{
    co.rounds = rounds;
}

void coro_go(void)
{
    for (int i = co.adopted; i < co.n; i++) { /* core 0 below */
        struct coro *c = &co.coros[i];
        struct queue *q = home_of(c);
        lock(q);
        push_locked(q, c, c, 1);
        unlock(q);
    }
    kick(INT_MAX);
    co.monitor_started = pthread_create(&co.monitor, NULL, monitor_main, NULL) == 0;
    if (co.adopted) { /* core 0 goes on on a worker; handoff_main pushes it */
        co.adopter_slot = tls_slot_load(tls_pointer());
        ebsp_coro_switch(&co.coros[0].sp, co.handoff_sp);
        settle_handed();
    }
}

/* The workers leave at once when no core is live. */
void coro_cancel(void)
{
    atomic_store(&co.live, 0);
    wake_all_workers();
    coro_join();
}

void coro_unadopt(void)
{
    struct coro *c = current_coro();
    if (!co.adopted || c != &co.coros[0])
        return;
    back_to_worker(c, CO_JOIN);
    /* back on the adopting thread: every other core finished */
    this_coro = NULL;
}

void coro_leave(void)
{
    struct coro *c = current_coro();
    if (!co.adopted || c != &co.coros[0])
        return;
    back_to_worker(c, CO_DONE);
    __builtin_unreachable();
}

void coro_join(void)
{
    /* The first workers never retire and leave only once every core
     * finished; after them the monitor, which may have started a worker
     * just before; then every added worker, running or retired. */
    for (int i = 0; i < co.base_workers; i++)
        if (atomic_load(&co.workers[i].state) != W_FREE)
            pthread_join(co.workers[i].thread, NULL);
    atomic_store(&co.monitor_stop, 1);
    if (co.monitor_started)
        pthread_join(co.monitor, NULL);
    for (int i = co.base_workers; i < atomic_load(&co.nworkers); i++)
        if (atomic_load(&co.workers[i].state) != W_FREE)
            pthread_join(co.workers[i].thread, NULL);
    end_donors(); /* no worker runs a core now */
    /* Called elsewhere than on the adopting thread (a stopped run, which the
     * library then ends: faces/bsplib/bsplib.c), that thread may still wait on the
     * region: it stays. */
    if (co.adopted && !pthread_equal(pthread_self(), co.adopter))
        return;
    this_coro = NULL;
    if (co.region)
        munmap(co.region, co.region_size);
    free(co.coros);
    free(co.workers);
    memset(&co, 0, sizeof co);
}

/*
 * Go learns the bounds of a C thread's stack from pthread_getattr_np at the
 * thread's first callback (runtime/cgo, x_cgo_getstackbound) and keeps
 * them; a later callback whose stack pointer lies outside asks again and
 * the bounds it learns then are dropped when it returns. The workers'
 * reported stacks contain the region (start_worker), but an adopted core 0
 * runs on its own thread's stack. While a run has one, this reports for
 * each of its workers one range that holds the region and that stack, so
 * that core 0's Go calls cost no look-up on any worker. The library's own
 * reference binds to this definition; the version script keeps it out of
 * the dynamic symbol table, so the program's calls go to glibc.
 */
static int real_getattr_np(pthread_t thread, pthread_attr_t *attr)
{
    static int (*real)(pthread_t, pthread_attr_t *);
    if (!real) {
        void *sym = dlsym(RTLD_NEXT, "pthread_getattr_np");
        memcpy(&real, &sym, sizeof sym);
        if (!real)
            return ENOSYS;
    }
    return real(thread, attr);
}

int pthread_getattr_np(pthread_t thread, pthread_attr_t *attr)
{
    int r = real_getattr_np(thread, attr);
    if (r != 0 || !co.adopted || !(this_worker || current_coro()) || !pthread_equal(thread, pthread_self()))
        return r;
    void *addr;
    size_t size;
    if (pthread_attr_getstack(attr, &addr, &size) != 0)
        return r;
    uintptr_t lo = (uintptr_t)addr, hi = lo + size;
    uintptr_t add[2][2] = {{(uintptr_t)co.region, (uintptr_t)co.region + co.region_size},
                           {co.adopter_stack[0], co.adopter_stack[1]}};
    for (int i = 0; i < 2; i++) {
        if (add[i][0] == add[i][1])
            continue;
        if (add[i][0] < lo)
            lo = add[i][0];
        if (add[i][1] > hi)
            hi = add[i][1];
    }
    pthread_attr_setstack(attr, (void *)lo, hi - lo);
    return r;
}

#else /* !CORO_SUPPORTED: cores are threads (sched_run.c) */

int coro_current(void)
{
    return 0;
}

void coro_progress(void)
{
}

int coro_yield(void)
{
    return 0;
}

int coro_wait(_Atomic unsigned *word, unsigned val)
{
    (void)word;
    (void)val;
    return 0;
}

void coro_poke(int i)
{
    (void)i;
}

void coro_kick(void)
{
}

void coro_poke_all(void)
{
}

void coro_park(_Atomic unsigned *word, unsigned val)
{
    (void)word;
    (void)val;
}

void coro_wake_parked(void)
{
}

int coro_start(struct sched_core *cores, size_t stride, int n, int first, size_t stack_size,
               void (*run_core)(struct sched_core *))
{
    (void)cores;
    (void)stride;
    (void)n;
    (void)first;
    (void)stack_size;
    (void)run_core;
    return -1;
}

int coro_home(int pid)
{
    (void)pid;
    return 0;
}

void coro_count_rounds(_Atomic unsigned *rounds)
{
    (void)rounds;
}

void coro_go(void)
{
}

void coro_cancel(void)
{
}

void coro_join(void)
{
}

void coro_unadopt(void)
{
}

void coro_leave(void)
{
}

#endif
