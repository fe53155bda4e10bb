/*
 * The coroutine scheduler (EBSP_SCHED=coro): cores run as coroutines on a
 * few worker threads (default: one per CPU) and a core that waits yields
 * its worker to another core instead of blocking it. The barrier itself,
 * host sync, stopping and the watchdog stay in sched_threads.c, which calls
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
 * writes (`while (*flag == 0);` with bsp_hpput), and the engine blocks in
 * Go in a few places (runtime/reg.go waits for another core's registration
 * with time.Sleep). Such a core never yields. A monitor thread (like Go's
 * sysmon) starts one more worker whenever every worker has run the same
 * core for MONITOR_STUCK_TICKS ticks while other cores wait to run, so the
 * core spun on gets a CPU as it would under threads, at worst at the
 * price of one thread per core. An added worker leaves again after
 * RETIRE_MS without work.
 *
 * Cores migrate between workers, so C code must not keep the address of a
 * __thread variable across a switch (gcc computes a TLS address once per
 * function): ebsp_self is set on every switch and read after a switch only
 * in a fresh function call; per-core state that was __thread lives in the
 * core (lqcd.c's error state).
 *
 * Only x86-64 has the switch (coro_switch_amd64.S); elsewhere, and in
 * builds with AddressSanitizer (which cannot follow the stack switches
 * without annotations), cores stay threads.
 */
#define _GNU_SOURCE
#include "shim.h"
#include "coro.h"

#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__)
#define CORO_SUPPORTED 1
#else
#define CORO_SUPPORTED 0
#endif

/* Defaults shared with sched_threads.c's choice. */
int coro_supported(void)
{
    return CORO_SUPPORTED;
}

#if CORO_SUPPORTED

void ebsp_coro_switch(void **save_sp, void *load_sp);
void ebsp_coro_boot(void);

enum { CO_YIELD = 1, CO_PARK, CO_DONE };

struct coro {
    void *sp;                  /* saved stack pointer while switched out */
    struct ebsp_core *core;
    struct coro *next;         /* in the run queue or the parked list */
    int action;                /* what the worker does after the core switched back */
    _Atomic unsigned *park_word;
    unsigned park_val;         /* parked until *park_word != park_val */
};

/* Worker slots: a slot's stack slice is reused only after its previous
 * thread was joined (glibc keeps the thread control block in it). */
enum { W_FREE = 0, W_RUNNING, W_EXITED };

struct worker {
    void *sp;                  /* the worker's scheduling loop while a core runs */
    pthread_t thread;
    int index;
    _Atomic int state;         /* W_FREE, W_RUNNING, W_EXITED (not yet joined) */
    struct coro *_Atomic cur;  /* the core it runs, NULL between cores */
    _Atomic unsigned long switches;
};

/* Worker slice: own frames, the thread control block and static TLS. */
enum { WORKER_STACK = 256 * 1024 };
/* Monitor period and how many periods without a switch make a worker stuck. */
enum { MONITOR_TICK_US = 1000, MONITOR_STUCK_TICKS = 3 };
/* An idle worker spins this long before it sleeps, when the cores fit on
 * the workers (a partner's release is then usually microseconds away).
 * Measured at P=2 (../shared/bench sync_us, 5 alternating launches, busy
 * VM): 0.63-1.41 us with this spin, 1.21-3.02 us without. A parked core
 * spinning on the barrier word before it parks instead: 15-54 us. */
enum { IDLE_SPIN_NS = 50000, IDLE_YIELDS = 4 };
/* An added worker leaves after this long without work. */
enum { RETIRE_MS = 20 };


static struct {
    char *region;
    size_t region_size, stack_size, page;
    struct coro *coros;        /* [n], index = pid */
    int n, first;
    void (*run_core)(struct ebsp_core *);
    struct worker *workers;    /* [max_workers] */
    int max_workers;
    _Atomic int nworkers;      /* slots ever used: 0..nworkers-1 */
    int base_workers;
    int spin_idle;
    atomic_flag lock;          /* the run queue and the parked list */
    struct coro *head, *tail;  /* runnable, FIFO */
    struct coro *parked;
    _Atomic int queued;        /* length of the run queue */
    _Atomic int live;          /* cores not yet finished */
    _Atomic unsigned qseq;     /* futex word of idle workers */
    _Atomic int idle;
    _Atomic int timed;         /* cores parked in sched_wait_change */
    pthread_t monitor;
    _Atomic int monitor_stop;
    int monitor_started;
} co;

static __thread struct worker *this_worker;

static void futex_wait(_Atomic unsigned *word, unsigned expected)
{
    syscall(SYS_futex, (unsigned *)word, FUTEX_WAIT_PRIVATE, expected, NULL, NULL, 0);
}

static void futex_wake(_Atomic unsigned *word, int n)
{
    syscall(SYS_futex, (unsigned *)word, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
}

static inline void cpu_relax(void)
{
    __builtin_ia32_pause();
}

static void lock(void)
{
    for (int i = 0; atomic_flag_test_and_set_explicit(&co.lock, memory_order_acquire); i++)
        if (i >= 64)
            sched_yield(); /* the holder's thread was preempted */
        else
            cpu_relax();
}

static void unlock(void)
{
    atomic_flag_clear_explicit(&co.lock, memory_order_release);
}

/* Appends the list first..last (locked). */
static void push_locked(struct coro *first, struct coro *last, int count)
{
    last->next = NULL;
    if (co.tail)
        co.tail->next = first;
    else
        co.head = first;
    co.tail = last;
    atomic_fetch_add(&co.queued, count);
}

/* Tells idle workers that cores were queued. */
static void kick(int count)
{
    atomic_fetch_add(&co.qseq, 1);
    if (atomic_load(&co.idle) > 0)
        futex_wake(&co.qseq, count);
}

static struct coro *pop(void)
{
    if (atomic_load(&co.queued) == 0)
        return NULL;
    lock();
    struct coro *c = co.head;
    if (c) {
        co.head = c->next;
        if (!co.head)
            co.tail = NULL;
        atomic_fetch_sub(&co.queued, 1);
    }
    unlock();
    return c;
}

/* The next core for worker w; NULL once every core finished, or when w is
 * a worker the monitor added and it found nothing to do for RETIRE_MS
 * (the core that held the others' worker has moved on). */
static struct coro *take(struct worker *w)
{
    uint64_t spin_until = 0;
    for (int round = 0;; round++) {
        struct coro *c = pop();
        if (c)
            return c;
        if (atomic_load(&co.live) == 0)
            return NULL;
        if (co.spin_idle) {
            uint64_t now = ebsp_now_ns();
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
        int extra = w->index >= co.base_workers;
        atomic_fetch_add(&co.idle, 1);
        if (atomic_load(&co.queued) == 0 && atomic_load(&co.live) > 0) {
            if (extra) {
                struct timespec ts = {0, RETIRE_MS * 1000000L};
                syscall(SYS_futex, (unsigned *)&co.qseq, FUTEX_WAIT_PRIVATE, seq, &ts, NULL, 0);
            } else {
                futex_wait(&co.qseq, seq);
            }
        }
        atomic_fetch_sub(&co.idle, 1);
        if (extra && atomic_load(&co.queued) == 0 && atomic_load(&co.qseq) == seq)
            return NULL; /* retires: nothing came in RETIRE_MS */
        round = -1;
    }
}

/* The worker's decision for a core that switched back to it. A parked core
 * checks its word again under the lock that coro_wake_parked takes after
 * changing the word, so a wake-up is never missed. */
static void settle(struct coro *c)
{
    switch (c->action) {
    case CO_DONE:
        if (atomic_fetch_sub(&co.live, 1) == 1) {
            atomic_fetch_add(&co.qseq, 1);
            futex_wake(&co.qseq, INT_MAX); /* the other workers leave */
        }
        return;
    case CO_PARK:
        lock();
        if (atomic_load(c->park_word) == c->park_val) {
            c->next = co.parked;
            co.parked = c;
            unlock();
            return;
        }
        push_locked(c, c, 1);
        unlock();
        kick(1);
        return;
    default:
        lock();
        push_locked(c, c, 1);
        unlock();
        kick(1);
    }
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    pthread_t me = pthread_self(); /* w->thread may not be stored yet */
    this_worker = w;
    faults_thread_start();
    struct coro *c;
    while ((c = take(w)) != NULL) {
        ebsp_self = c->core;
        c->core->thread = me; /* where the watchdog's signal finds it */
        atomic_store(&w->cur, c);
        atomic_fetch_add(&w->switches, 1);
        ebsp_coro_switch(&w->sp, c->sp);
        atomic_store(&w->cur, NULL);
        ebsp_self = NULL;
        settle(c);
    }
    faults_thread_end();
    this_worker = NULL;
    atomic_store(&w->state, W_EXITED);
    return NULL;
}

/* Read in a call of its own: after a switch the caller may run on another
 * thread, and a TLS address computed before the switch would be stale. */
__attribute__((noinline)) static struct worker *current_worker(void)
{
    struct worker *w = this_worker;
    __asm__ volatile("" ::: "memory");
    return w;
}

/* Switches from the calling core back to its worker. */
static void back_to_worker(struct coro *c, int action)
{
    c->action = action;
    ebsp_coro_switch(&c->sp, current_worker()->sp);
}

static struct coro *current_coro(void)
{
    struct worker *w = current_worker();
    return w ? atomic_load(&w->cur) : NULL;
}

int coro_current(void)
{
    return current_coro() != NULL;
}

int sched_pause(void)
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
        c->park_word = word;
        c->park_val = val;
        back_to_worker(c, CO_PARK);
    }
}

int sched_wait_change(_Atomic unsigned *word, unsigned val)
{
    struct coro *c = current_coro();
    if (!c)
        return 0;
    atomic_fetch_add(&co.timed, 1);
    if (atomic_load(word) == val) {
        c->park_word = word;
        c->park_val = val;
        back_to_worker(c, CO_PARK);
    }
    atomic_fetch_sub(&co.timed, 1);
    return 1;
}

void sched_wake_waiters(void)
{
    if (atomic_load(&co.timed) > 0)
        coro_wake_parked();
}

void coro_wake_parked(void)
{
    if (!co.coros)
        return;
    lock();
    struct coro *list = co.parked;
    co.parked = NULL;
    int count = 0;
    struct coro *first = NULL, *last = NULL;
    while (list) { /* reversed: the first to park runs first */
        struct coro *next = list->next;
        list->next = first;
        first = list;
        if (!last)
            last = list;
        list = next;
        count++;
    }
    if (count)
        push_locked(first, last, count);
    unlock();
    if (count)
        kick(INT_MAX);
}

static void coro_entry(struct coro *c)
{
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

static void *monitor_main(void *arg)
{
    (void)arg;
    unsigned long last[co.max_workers > 0 ? co.max_workers : 1];
    int still[co.max_workers > 0 ? co.max_workers : 1];
    memset(still, 0, sizeof still);
    for (int i = 0; i < co.max_workers; i++)
        last[i] = ~0ul;
    struct timespec tick = {0, MONITOR_TICK_US * 1000L};
    while (!atomic_load(&co.monitor_stop)) {
        nanosleep(&tick, NULL);
        int nw = atomic_load(&co.nworkers);
        int all_stuck = nw > 0;
        for (int i = 0; i < nw; i++) {
            struct worker *w = &co.workers[i];
            if (atomic_load(&w->state) != W_RUNNING) {
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
        if (all_stuck && atomic_load(&co.queued) > 0 && atomic_load(&co.idle) == 0)
            start_worker();
        if (atomic_load(&co.timed) > 0)
            coro_wake_parked(); /* their callers look at the clock */
    }
    return NULL;
}

static long cpu_count(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n;
}

/* EBSP_WORKERS (ebsp_workers), default the CPU count, never more than
 * the cores. */
static int worker_count(int cores)
{
    long n = ebsp_workers;
    if (n < 1)
        n = cpu_count();
    return n > cores ? cores : (int)n;
}

int coro_start(struct ebsp_core *cores, int n, int first, size_t stack_size, void (*run_core)(struct ebsp_core *))
{
    int count = n - first;
    memset(&co, 0, sizeof co);
    co.page = (size_t)sysconf(_SC_PAGESIZE);
    co.stack_size = (stack_size + co.page - 1) & ~(co.page - 1);
    co.n = count;
    co.first = first;
    co.run_core = run_core;
    co.base_workers = worker_count(count);
    co.max_workers = count + 1; /* the monitor's bound: one per core, as threads */
    co.spin_idle = count <= co.base_workers && count <= cpu_count();

    co.region_size = (size_t)count * co.stack_size + (size_t)co.max_workers * WORKER_STACK;
    void *r = mmap(NULL, co.region_size, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    co.coros = calloc((size_t)count, sizeof *co.coros);
    co.workers = calloc((size_t)co.max_workers, sizeof *co.workers);
    if (r == MAP_FAILED || !co.coros || !co.workers) {
        if (r != MAP_FAILED)
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
        c->core = &cores[first + i];
        /* The frame ebsp_coro_switch pops: r15 r14 r13 r12 rbx rbp, then
         * returns into ebsp_coro_boot with rsp 16-byte aligned. */
        uintptr_t top = ((uintptr_t)(lo + co.stack_size) & ~(uintptr_t)15) - 16;
        void **sp = (void **)(top - 7 * sizeof(void *));
        sp[0] = sp[1] = sp[2] = NULL;
        sp[3] = (void *)coro_entry; /* r12 */
        sp[4] = c;                  /* rbx */
        sp[5] = NULL;               /* rbp */
        sp[6] = (void *)ebsp_coro_boot;
        c->sp = sp;
    }
    for (int i = 0; i < co.max_workers; i++)
        mprotect(co.region + (size_t)count * co.stack_size + (size_t)i * WORKER_STACK, co.page, PROT_NONE);
    atomic_store(&co.live, count);
    lock();
    for (int i = 0; i < count; i++)
        push_locked(&co.coros[i], &co.coros[i], 1);
    unlock();
    int started = 0;
    while (started < co.base_workers && start_worker() == 0)
        started++;
    if (started == 0) {
        munmap(co.region, co.region_size);
        free(co.coros);
        free(co.workers);
        memset(&co, 0, sizeof co);
        return -1;
    }
    co.base_workers = started;
    co.monitor_started = pthread_create(&co.monitor, NULL, monitor_main, NULL) == 0;
    return 0;
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
    if (co.region)
        munmap(co.region, co.region_size);
    free(co.coros);
    free(co.workers);
    memset(&co, 0, sizeof co);
}

#else /* !CORO_SUPPORTED: cores are threads (sched_threads.c) */

int coro_current(void)
{
    return 0;
}

int sched_pause(void)
{
    return 0;
}

int sched_wait_change(_Atomic unsigned *word, unsigned val)
{
    (void)word;
    (void)val;
    return 0;
}

void sched_wake_waiters(void)
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

int coro_start(struct ebsp_core *cores, int n, int first, size_t stack_size, void (*run_core)(struct ebsp_core *))
{
    (void)cores;
    (void)n;
    (void)first;
    (void)stack_size;
    (void)run_core;
    return -1;
}

void coro_join(void)
{
}

#endif
