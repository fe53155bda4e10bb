/*
 * The coroutine scheduler (EBSP_SCHED=coro): cores run as coroutines on a
 * few worker threads (default: one per CPU) and a core that waits yields
 * its worker to another core instead of blocking it. The barrier itself,
 * host sync, the waits, stopping and the watchdog stay in sched_run.c, which calls
 * in here to start the cores, to park a waiting core and to wake the
 * parked ones; these files only run coroutines. This one starts and ends
 * a run of them; coro_workers.c runs them, coro_balance.c watches them
 * (coro_internal.h).
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
#include "coro_internal.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

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

/* Starts a worker in the lowest free slot. Called by coro_start and then
 * only by the monitor, so slots are never claimed twice. */
int start_worker(void)
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
    co.owns_cpus = (long)co.base_workers * (ebsp_cpu_sharers > 1 ? ebsp_cpu_sharers : 1) <= sysconf(_SC_NPROCESSORS_ONLN);
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
        settle_after_switch();
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
    switch_away(c, CO_JOIN);
    /* back on the adopting thread: every other core finished */
    this_coro = NULL;
}

void coro_leave(void)
{
    struct coro *c = current_coro();
    if (!co.adopted || c != &co.coros[0])
        return;
    switch_away(c, CO_DONE);
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

int coro_owns_cpus(void)
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
