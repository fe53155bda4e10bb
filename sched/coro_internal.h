/*
 * What the files of the coroutine scheduler share, and only they:
 * sched_coro.c starts and ends a run of coroutine cores, coro_workers.c
 * runs them (the workers, their queues, the switches, parking and
 * waking), coro_balance.c watches them (the monitor: stuck workers, and
 * whether the cores run faster on one worker or spread). What the rest of
 * the scheduler uses of them is coro.h.
 */
#ifndef EBSP_CORO_INTERNAL_H
#define EBSP_CORO_INTERNAL_H

#include "coro.h"
#include "coro_tls.h"
#include "futex.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>

#if defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__)
#define CORO_SUPPORTED 1
#else
#define CORO_SUPPORTED 0
#endif

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

/* The run of coroutine cores (one at a time in a process). */
struct coro_sched {
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
    int owns_cpus;             /* coro_owns_cpus */
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
};
/* The run's state, co: coro_workers.c's own variable, static there so that
 * the compiler knows which of its calls leave it alone (an extern one
 * cost the switches and the queues a tenth more instructions), which the
 * other files reach through coro_state. */
#ifdef CORO_STATE_HERE
static struct coro_sched co;
#else
extern struct coro_sched *const coro_state;
#define co (*coro_state)
#endif

/* Worker context only: on a core, the thread pointer is the core's. */
extern __thread struct worker *this_worker;
/* The core's own coroutine, in its own TLS: set by its donor (or, for an
 * adopted core 0, on its thread) and stable across switches. */
extern __thread struct coro *this_coro;

static inline void lock(struct queue *q)
{
    for (int i = 0; atomic_flag_test_and_set_explicit(&q->lock, memory_order_acquire); i++)
        if (i >= 64)
            sched_yield(); /* the holder's thread was preempted */
        else
            cpu_relax();
}

static inline void unlock(struct queue *q)
{
    atomic_flag_clear_explicit(&q->lock, memory_order_release);
}

static inline struct queue *home_of(const struct coro *c)
{
    return &co.workers[c->home].q;
}

/* Appends the list first..last to the list head..tail. */
static inline void append(struct coro **head, struct coro **tail, struct coro *first, struct coro *last)
{
    last->next = NULL;
    if (*tail)
        (*tail)->next = first;
    else
        *head = first;
    *tail = last;
}

/* Appends the list first..last to q's run queue (locked). */
static inline void push_locked(struct queue *q, struct coro *first, struct coro *last, int count)
{
    append(&q->head, &q->tail, first, last);
    atomic_fetch_add(&q->queued, count);
}

/* Tells idle workers that cores were queued. The queue's count was raised
 * before (a sequentially consistent read-modify-write), and an idle worker
 * counts itself idle before it looks at the counts: one of the two sees the
 * other. */
static inline void kick(int count)
{
    if (atomic_load(&co.idle) > 0) {
        atomic_fetch_add(&co.qseq, 1);
        futex_wake(&co.qseq, count);
    }
}

/* The running coroutine, NULL outside one (or on an adopted core 0 back
 * on its thread). */
static inline struct coro *current_coro(void)
{
    struct coro *c = this_coro;
    return c && c->worker ? c : NULL;
}

/* ---- coro_workers.c ---- */

/* Cores queued on every worker. */
int queued_total(void);
/* Every first worker runs cores again (none rests). */
void wake_resting(void);
/* Wakes every sleeping worker, to look at co.live. */
void wake_all_workers(void);
/* Moves the parked cores whose wait ended to their run queues, on every
 * first worker; how many. */
int unpark_all(void);
/* After a switch into a core: settles the core that handed its worker
 * over to this one. */
void settle_after_switch(void);
/* Switches from core c to the next one of its worker, or back to the
 * worker; action is what the worker then does with c (CO_*). */
void switch_away(struct coro *c, int action);
/* A worker thread's body (arg: its struct worker); the adopting thread's
 * while core 0 runs on the workers; a core coroutine's first frame. */
void *worker_main(void *arg);
void handoff_main(void *arg);
void coro_entry(struct coro *c);

/* ---- coro_balance.c ---- */

/* The monitor thread's body, from coro_go to coro_join. */
void *monitor_main(void *arg);

/* ---- sched_coro.c ---- */

/* Starts a worker in the lowest free slot: 0, or -1. */
int start_worker(void);

#endif /* CORO_SUPPORTED */

#endif
