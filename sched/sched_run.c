/*
 * A run of cores, for either kind of core (scheduler.h): starting the cores
 * (a thread each here, or coroutines through sched_coro.c) and joining
 * them, the barrier and host sync, the wait primitive, stopping a run,
 * deadlock and divergence detection and the watchdog. Only how a core
 * waits differs between the kinds: a thread core yields a few times (when
 * the run has few threads per CPU) and then sleeps on a futex (never
 * busy-spins, as cores usually outnumber CPUs); a coroutine core parks
 * and its worker runs another core. Features act at points of the run
 * through their hooks (sched_hooks.c), never by name.
 */
#define _GNU_SOURCE
#include "coro.h"
#include "scheduler.h"
#include "futex.h"

#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

__thread struct sched_core *sched_self;

/* The settings (scheduler.h): capi/env.go sets them from the environment,
 * which is read in one place, package env. */
size_t ebsp_stack_bytes;
double ebsp_watchdog_seconds;
int ebsp_sched_coro = 1;
int ebsp_workers;
int ebsp_cpu_sharers = 1;
int ebsp_rest = REST_AUTO;

/* A waiting core yields SPIN_YIELDS times before it sleeps on the futex.
 * It never spins on `pause` first, even when the cores fit on the CPUs:
 * measured on a 2-CPU VM shared with other work, 2 cores took 8-120 us per
 * empty sync with a pause spin of 5-110 us, against 0.7-3 us with yields
 * only (a preempted partner gets the CPU back sooner through a yield).
 * Measured again with ../shared/bench at P=2 (sync_us, 5 alternating
 * launches, load 40-180): yields only 1.2-6.1 us, a 20 us pause spin first
 * 5.5-72 us. The coroutine scheduler does better still (sched_coro.c). */
enum { SPIN_YIELDS = 20 };
/* Only while the run has at most this many threads per CPU: every waiter
 * that yields stays runnable, so with many more threads than CPUs the
 * yields of the waiting cores crowd out the cores still computing, and on
 * a loaded machine each yield may hand the CPU to another process for a
 * whole time slice. Measured with a BSPlib program of 1024 cores and 20
 * supersteps on a 2-CPU VM under load (34 runs each, alternating): 2.9 s
 * median and 6.4 s at worst with the yields, 1.4 s and 3.1 s sleeping at
 * once; an empty sync of 1024 cores 4-15 ms against 2.8-5.8 ms. At 64
 * cores the two were even (95-210 us), at 2 the yields win (1.0 against
 * 2.4 us). */
enum { SPIN_THREADS_PER_CPU = 8 };

/*
 * The barrier counts in two levels. A round ends once every core either
 * arrived at the barrier or finished; each core counts itself in its group
 * (the cores of one coroutine worker, or all cores when they are threads)
 * and the core that completes a group counts the group in the run. Only
 * that second count, one per group, moves a cache line between the
 * workers' CPUs: on a 2-vCPU EPYC VM a line takes ~240 ns from one CPU to
 * the other, and 16 cores counting themselves in one word cost more than
 * the rest of an empty superstep. The kinds of the arrivals (which call
 * they came from) are gathered the same way, as bits.
 */
struct group {
    _Atomic int settled;        /* members arrived or finished this round */
    _Atomic unsigned kinds;     /* 1 << enum ebsp_where of each arrival */
    int size;
} __attribute__((aligned(64)));

struct sched_run {
    struct sched_core *cores;   /* core i at cores + i * stride bytes (core_at) */
    size_t stride;
    int n;
    int first_pid;              /* the pid of cores[0] */
    int first, started;         /* threads started for cores first..first+started-1 */
    char *stacks;               /* their stacks, stacks_size bytes, or NULL (glibc's) */
    size_t stacks_size;
    struct group *groups;       /* core i counts in groups[core_at(i)->group] */
    struct group one;           /* groups when there is one */
    struct group all;           /* the run's count: cores of settled groups */
    _Atomic unsigned gen;       /* barrier generation: futex word of waiting cores */
    _Atomic int finished;       /* cores that returned from their kernel */
    _Atomic int ended;          /* cores that arrived in bsp_end */
    _Atomic int stopped;        /* abort, deadlock or divergence */
    _Atomic unsigned host_event;/* futex word of the host thread */
    _Atomic int host_sync_pending;
    void (*host_fn)(void);      /* what the host runs for it (sched_host_sync) */
    const char *host_what;
    _Atomic int stall_reported;
    _Atomic int sleepers;       /* cores asleep (or about to be) on gen */
    int spin_yields;            /* sched_yields before a waiter sleeps (SPIN_YIELDS or 0) */
    int coro;                   /* cores first..n-1 are coroutines (sched_coro.c) */
    int nested;                 /* a nested section's run (sched_nest): threads, no hooks of a run */
    struct sched_run *outer;    /* then the run its core 0 left for it */
    _Atomic int nests;          /* nested runs of its cores under way: its watchdog leaves them theirs */
};

/* The run of the sections that no other section holds; a nested section's
 * run is the run of the threads taking part in it (sched_nest), kept in
 * thread-local storage, which moves with a coroutine core (coro_tls.c). */
static struct sched_run outer_run;
static __thread struct sched_run *run_of_thread;

static inline struct sched_run *current_run(void)
{
    struct sched_run *r = run_of_thread;
    return r ? r : &outer_run;
}

/* The calling thread's run: every function below acts on it. Each `run.`
 * is a look at thread-local storage, which an atomic before it makes the
 * compiler repeat: the barrier's functions look once (r). */
#define run (*current_run())

/* The run's core i. */
static inline struct sched_core *core_at(int i)
{
    return sched_core_at(run.cores, run.stride, i);
}
/* A thread core waiting in sched_wait sleeps at most this long at a time,
 * to see the run stop (coroutine cores are woken by the stop). */
enum { CORE_SLICE_NS = 10000000 };
/* A timed sleep here wakes 30-50 us late (a busy virtual machine), longer
 * than most modelled DMA transfers, so the last SHORT_WAIT_NS before a
 * deadline of sched_wait(NULL, ...) are waited out awake. How depends on
 * who needs the CPU: when the cores outnumber the CPUs, the other cores
 * do, so the waiting core yields to them (16 cores streaming on 2 CPUs:
 * 8x the aggregate rate of spinning); otherwise it spins, since under
 * load from other processes one sched_yield can hand the CPU away for a
 * whole time slice (a one-core stream of 4 KiB tokens ran 100x slower in
 * one run). Either way the wait is bounded by the deadline, unlike a
 * barrier's. */
enum { SHORT_WAIT_NS = 60000 };

/* Ends the current barrier generation; the futex wake (a system call) only
 * when some core sleeps. A core counts itself as a sleeper before it reads
 * gen again in the kernel, so either it sees the new generation or this
 * sees the sleeper. */
static void release_gen(void)
{
    struct sched_run *const r = current_run();
    atomic_fetch_add(&r->gen, 1);
    if (atomic_load(&r->sleepers) > 0)
        futex_wake(&r->gen, INT_MAX);
    if (r->coro)
        coro_kick();
}

/* Waits until the barrier generation moves on from gen. */
static void wait_gen(unsigned gen)
{
    struct sched_run *const r = current_run();
    if (r->coro && coro_current()) {
        coro_park(&r->gen, gen);
        return;
    }
    for (int i = 0; atomic_load(&r->gen) == gen; i++) {
        if (i < r->spin_yields) {
            sched_yield();
        } else {
            atomic_fetch_add(&r->sleepers, 1);
            futex_wait(&r->gen, gen);
            atomic_fetch_sub(&r->sleepers, 1);
        }
    }
}

static void wake_host(void)
{
    atomic_fetch_add(&run.host_event, 1);
    futex_wake(&run.host_event, INT_MAX);
}

int sched_stopped(void)
{
    return atomic_load(&run.stopped);
}

void sched_stop(void)
{
    if (atomic_exchange(&run.stopped, 1))
        return;
    atomic_fetch_add(&run.gen, 1);
    futex_wake(&run.gen, INT_MAX);
    if (run.coro)
        coro_wake_parked();
    wake_host();
}

void sched_leave_if_stopped(void)
{
    struct sched_core *self = sched_self;
    if (!self || !atomic_load(&run.stopped))
        return;
    if (self->leave)
        self->leave();
    if (self->can_unwind)
        longjmp(self->exit_jmp, 1);
}

/* The index in the run of core pid: the run's cores are consecutive pids,
 * which start above 0 in a process that runs a later part of a section
 * (an MPI rank). -1 for a core of another process, or no run. */
static int local_index(int pid)
{
    if (!run.cores)
        return -1;
    int i = pid - run.first_pid;
    return i >= 0 && i < run.n ? i : -1;
}

int sched_where(int pid)
{
    int i = local_index(pid);
    return i < 0 ? WHERE_IDLE : core_at(i)->where;
}

/* Only the core itself counts its arrivals; a core that reads another's
 * count and finds it moved on also sees the registrations pushed before. */
static void count_arrival(struct sched_core *self)
{
    _Atomic uint32_t *n = (_Atomic uint32_t *)&self->arrivals;
    atomic_store_explicit(n, atomic_load_explicit(n, memory_order_relaxed) + 1, memory_order_release);
}

int sched_arrivals(int pid)
{
    int i = local_index(pid);
    return i < 0 ? 0 : (int)atomic_load_explicit((_Atomic uint32_t *)&core_at(i)->arrivals, memory_order_acquire);
}

/* Whether the cores of this run outnumber the CPUs. */
static int oversubscribed(void)
{
    return run.n > cpu_count();
}

/* sched_wait without a word: lets ns pass. A coroutine core lets the
 * other cores run until the deadline (a sleep would block its worker and
 * every core queued there). */
static int pass_time(uint64_t ns)
{
    uint64_t until = ebsp_now_ns() + ns;
    if (run.coro && coro_yield()) {
        while (ebsp_now_ns() < until && !atomic_load(&run.stopped) && coro_yield())
            ;
        return 0;
    }
    for (;;) {
        uint64_t now = ebsp_now_ns();
        if (now + SHORT_WAIT_NS >= until || atomic_load(&run.stopped))
            break;
        uint64_t wake = until - SHORT_WAIT_NS;
        if (wake - now > CORE_SLICE_NS)
            wake = now + CORE_SLICE_NS;
        struct timespec ts = {(time_t)(wake / 1000000000u), (long)(wake % 1000000000u)};
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
            ;
    }
    int yield = oversubscribed();
    while (ebsp_now_ns() < until && !atomic_load(&run.stopped)) {
        if (yield)
            sched_yield();
        else
            cpu_relax();
    }
    return 0;
}

int sched_wait(_Atomic unsigned *word, unsigned val, uint64_t timeout_ns)
{
    if (!word)
        return pass_time(timeout_ns);
    int core = sched_self != NULL; /* the host thread is not stopped with the run */
    uint64_t end = timeout_ns ? ebsp_now_ns() + timeout_ns : UINT64_MAX;
    for (;;) {
        if (atomic_load(word) != val)
            return 1;
        if (core && atomic_load(&run.stopped))
            return 0;
        uint64_t now = end == UINT64_MAX ? 0 : ebsp_now_ns();
        if (now >= end)
            return 0;
        /* parked until woken, or the monitor's next tick (which wakes
           every timed waiter to look at its clock) */
        if (run.coro && coro_wait(word, val))
            continue;
        uint64_t left = end - now;
        if (core && left > CORE_SLICE_NS)
            left = CORE_SLICE_NS;
        if (end == UINT64_MAX && !core)
            futex_wait(word, val);
        else
            futex_wait_ns(word, val, left);
    }
}

/* Coroutine cores are woken through their worker (no system call); the
 * cores of a run are all coroutines or all threads. */
void sched_wake(_Atomic unsigned *word, int pid)
{
    if (run.coro) {
        if (pid < 0)
            coro_poke_all();
        else if (local_index(pid) >= 0)
            coro_poke(local_index(pid));
    } else {
        futex_wake(word, INT_MAX);
    }
}

void sched_pause(void)
{
    if (!(run.coro && coro_yield()))
        sched_yield();
}

/* A polling waiter looks POLL_SPIN_LOOKS times, letting the other cores
 * run between looks, before it sleeps. One that waits for other
 * processes keeps doing so, giving up its CPU too, for OUTSIDE_SPIN_NS
 * (the partner may be a process waiting for this CPU: a message's
 * protocol takes several steps of each side; with a 50 us sleep between
 * looks an 8-byte ring exchange took 8.6 us under threads, and parked
 * coroutines, woken each millisecond, 0.5-1.8 ms), then sleeps
 * OUTSIDE_SLICE_NS between looks; one that waits for cores of this
 * process sleeps POLL_SLICE_NS (they wake it: the slice is for what it
 * checks itself, such as a partner that left). */
enum { POLL_SPIN_LOOKS = 20 };
#define OUTSIDE_SPIN_NS 2000000u
#define OUTSIDE_SLICE_NS 50000u
#define POLL_SLICE_NS 20000000u

int sched_poll_pause(unsigned looks, uint64_t begun_ns, int outside)
{
    if (looks < POLL_SPIN_LOOKS) {
        sched_pause();
        return 1;
    }
    if (outside && ebsp_now_ns() - begun_ns < OUTSIDE_SPIN_NS) {
        sched_pause();
        if (!(run.coro && coro_owns_cpus()))
            sched_yield(); /* a partner process may wait for this CPU */
        return 1;
    }
    return 0;
}

uint64_t sched_poll_slice(int outside)
{
    return outside ? OUTSIDE_SLICE_NS : POLL_SLICE_NS;
}

void sched_progress(void)
{
    if (run.coro)
        coro_progress();
}

/* Counts the calling core in this round, as arrived at a barrier of the
 * given kind or (kind < 0) as finished. 1 for the core that completed the
 * round, which finds the kinds of the round's arrivals in *kinds. */
static int count_in(struct sched_core *self, int kind, unsigned *kinds)
{
    struct sched_run *const r = current_run();
    if (r->n == 1) { /* alone: a round of one (no atomics, a sixth of an empty sync across 2 ranks) */
        *kinds = kind >= 0 ? 1u << kind : 0;
        return 1;
    }
    struct group *g = &r->groups[self->group];
    /* A bit set already needs no locked instruction: the round's last
     * core clears them before it releases the round, so one seen here is
     * this round's. */
    if (kind >= 0 && !(atomic_load_explicit(&g->kinds, memory_order_relaxed) & 1u << kind))
        atomic_fetch_or(&g->kinds, 1u << kind);
    if (atomic_fetch_add(&g->settled, 1) + 1 != g->size)
        return 0;
    unsigned k = atomic_exchange(&g->kinds, 0);
    atomic_store(&g->settled, 0);
    if (k)
        atomic_fetch_or(&r->all.kinds, k);
    if (atomic_fetch_add(&r->all.settled, g->size) + g->size != r->n)
        return 0;
    *kinds = atomic_exchange(&r->all.kinds, 0);
    atomic_store(&r->all.settled, 0);
    return 1;
}

static void free_groups(void)
{
    if (run.groups != &run.one)
        free(run.groups);
    run.groups = NULL;
}

/* Puts core pid in group group_of(pid) of ngroups. Returns 0, or -1
 * without memory; one group needs none. */
static int make_groups(int ngroups, int (*group_of)(int pid))
{
    free_groups();
    run.groups = ngroups == 1 ? &run.one : aligned_alloc(64, sizeof *run.groups * (size_t)ngroups);
    if (!run.groups)
        return -1;
    memset(run.groups, 0, sizeof *run.groups * (size_t)ngroups);
    for (int i = 0; i < run.n; i++) {
        core_at(i)->group = group_of ? group_of(i) : 0;
        run.groups[core_at(i)->group].size++;
    }
    return 0;
}

/* A run that is stopped already (a misuse, an abort) did not stall: the
 * core that stopped it counts as finished once it left, and a core that
 * arrives then completes a round that looks like a deadlock. That core
 * stopped the run before it counted itself, so whoever completes the round
 * sees the stop here. */
static void stall(int kind)
{
    if (atomic_load(&run.stopped))
        return;
    if (!atomic_exchange(&run.stall_reported, 1))
        hooks_report_stall(kind);
    sched_stop();
}

/* Arrives at the barrier; returns 1 for the last arriver (which has not yet
 * released the others), 0 for the others (already released), -1 if stopped.
 * self is the caller's core. */
static int arrive(struct sched_core *self, int kind, int release_now, int world)
{
    struct sched_run *const r = current_run();
    hooks_settle(self); /* e.g. the core's transfers land before anyone passes the barrier */
    if (atomic_load(&r->stopped))
        return -1;
    self->where = kind;
    count_arrival(self); /* before the round can end: a released core never has more */
    unsigned gen = atomic_load(&r->gen), kinds;
    if (count_in(self, kind, &kinds)) {
        /* some cores left the run and all the others wait: nobody can progress */
        if (atomic_load(&r->finished) > 0) {
            stall(kind);
            return -1;
        }
        /* all cores in a barrier must have entered it through the same call */
        if (kinds & (kinds - 1)) {
            stall(STALL_DIVERGED);
            return -1;
        }
        /* a world of several processes completes the round with them */
        if (world && !r->nested && hooks_round(kind) != 0) {
            sched_stop();
            return -1;
        }
        if (release_now)
            release_gen();
        return 1;
    }
    wait_gen(gen);
    return atomic_load(&r->stopped) ? -1 : 0;
}

static int barrier(int kind, int world)
{
    struct sched_core *self = sched_self;
    if (kind == WHERE_END)
        atomic_fetch_add(&run.ended, 1);
    int r = arrive(self, kind, 1, world);
    self->where = WHERE_RUNNING;
    return r < 0 ? -1 : 0;
}

int sched_barrier(int kind)
{
    return barrier(kind, 1);
}

int sched_barrier_local(int kind)
{
    return barrier(kind, 0);
}

int sched_host_sync(void (*fn)(void), const char *what)
{
    struct sched_core *self = sched_self;
    unsigned gen = atomic_load(&run.gen);
    int r = arrive(self, WHERE_HOST_SYNC, fn == NULL, 1);
    if (r == 1 && fn) {
        /* the host runs fn, then advances the generation */
        run.host_fn = fn;
        run.host_what = what;
        atomic_store(&run.host_sync_pending, 1);
        wake_host();
        wait_gen(gen);
        r = atomic_load(&run.stopped) ? -1 : 0;
    }
    self->where = WHERE_RUNNING;
    return r < 0 ? -1 : 0;
}

static void core_finished(struct sched_core *self)
{
    self->where = WHERE_FINISHED;
    count_arrival(self);
    unsigned kinds;
    atomic_fetch_add(&run.finished, 1);
    if (count_in(self, -1, &kinds)) {
        if (atomic_load(&run.finished) < run.n)
            stall(WHERE_FINISHED); /* the others wait at a barrier that the finished cores never reach */
        else if (atomic_load(&run.ended) == 0)
            stall(STALL_NO_END); /* the board's host waits for their bsp_end */
    }
    wake_host();
}

/* A core's life, on its thread or as a coroutine (whose worker has set
 * sched_self and the signal stack). */
static void run_core(struct sched_core *self)
{
    self->where = WHERE_RUNNING;
    hooks_core_begin(self);
    if (self->can_unwind) {
        if (setjmp(self->exit_jmp) == 0)
            self->entry();
    } else {
        self->entry();
    }
    if (!atomic_load(&run.stopped))
        hooks_settle(self); /* a kernel may end without waiting for its DMA */
    core_finished(self);
}

static void *core_main(void *arg)
{
    struct sched_core *self = arg;
    run_of_thread = self->in_run;
    sched_self = self;
    hooks_thread_begin();
    run_core(self);
    hooks_thread_end();
    sched_self = NULL;
    run_of_thread = NULL;
    return NULL;
}

/* The stacks of cores first..n-1 as threads, each with a guard page below
 * (sched_map_stacks); NULL leaves them to glibc. */
static char *thread_stacks(int count, size_t *slice)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    *slice = ((ebsp_stack_bytes + page - 1) & ~(page - 1)) + page;
    run.stacks_size = *slice * (size_t)count;
    run.stacks = sched_map_stacks(run.stacks_size);
    for (int i = 0; run.stacks && i < count; i++)
        mprotect(run.stacks + (size_t)i * *slice, page, PROT_NONE);
    return run.stacks;
}

/* Coroutines (sched_coro.c) where this build has them and EBSP_SCHED
 * asks for them (the default), for runs whose started cores all run C code
 * compiled from a kernel file or a BSPlib program; an adopted core 0 (the
 * BSPlib face's pid 0) becomes a coroutine too, on its thread's stack.
 * Threads otherwise: a registered kernel (a C, Go or Python function) may
 * have frames of another language runtime under its bsp_sync, and a
 * coroutine must not switch with a Go frame on its stack (nor Python's,
 * whose thread state would be shared by every core the worker runs). */
static int use_coro(int first)
{
    if (run.nested || !ebsp_sched_coro || first > 1 || !coro_supported())
        return 0;
    for (int i = first; i < run.n; i++)
        if (!core_at(i)->can_unwind)
            return 0;
    return 1;
}

/* Barrier releases and finished cores: what the watchdog calls progress. */
static unsigned progress(void)
{
    return atomic_load(&run.gen) + (unsigned)atomic_load(&run.finished);
}

/* Once a run is stopped, cores still computing are asked to leave. */
static void interrupt_running_cores(void)
{
    for (int i = 0; i < run.n; i++)
        if (core_at(i)->where == WHERE_RUNNING)
            hooks_interrupt(core_at(i));
}

enum { POLL_NS = 100000000 };

static void host_loop(void)
{
    double timeout = ebsp_watchdog_seconds;
    unsigned last_progress = progress();
    uint64_t last_change = ebsp_now_ns();
    for (;;) {
        unsigned ev = atomic_load(&run.host_event);
        if (atomic_load(&run.finished) == run.n)
            return;
        if (atomic_exchange(&run.host_sync_pending, 0)) {
            if (!atomic_load(&run.stopped))
                hooks_host_call(run.host_fn, run.host_what);
            release_gen();
            continue;
        }
        if (timeout <= 0 && !atomic_load(&run.stopped)) {
            sched_wait(&run.host_event, ev, 0);
            continue;
        }
        sched_wait(&run.host_event, ev, POLL_NS);
        if (atomic_load(&run.stopped)) {
            interrupt_running_cores();
            continue;
        }
        uint64_t now = ebsp_now_ns();
        if (progress() != last_progress) {
            last_progress = progress();
            last_change = now;
        } else if (atomic_load(&run.nests) > 0) {
            last_change = now; /* a core in a nested run: that run's watchdog looks */
        } else if ((double)(now - last_change) * 1e-9 >= timeout) {
            stall(STALL_TIMEOUT);
        }
    }
}

/* The adopted thread keeps its signal stack: Go records the one a thread
 * has when it first calls into Go and aborts if it is later disabled, and
 * this thread calls into Go before and after the run. */
void sched_adopt(struct sched_core *core)
{
    hooks_prepare();
    /* the thread a signal reaches: a nested run's core 0 is a core of the
     * run around already, perhaps a coroutine on a worker */
    struct sched_core *was = sched_self;
    core->thread = was ? was->thread : pthread_self();
    sched_self = core;
    core->in_run = &run;
    core->where = WHERE_RUNNING;
}

void sched_release(void)
{
    core_finished(sched_self);
    if (run.coro)
        coro_unadopt(); /* back on its own thread once every core left */
}

void sched_leave_forever(void)
{
    core_finished(sched_self);
    if (run.coro) {
        hooks_allow_interrupt(); /* from the watchdog's signal: the worker's next cores may need it */
        coro_leave();
    }
    for (;;)
        pause();
}

void sched_start(struct sched_core *cores, size_t stride, int n, int first_pid, int first)
{
    hooks_prepare();
    int nested = run.nested; /* what sched_nest set */
    struct sched_run *outer = run.outer;
    memset(&run, 0, sizeof run);
    run.nested = nested;
    run.outer = outer;
    run.cores = cores;
    run.stride = stride;
    run.n = n;
    run.first_pid = first_pid;
    run.first = first;
    for (int i = first; i < n; i++)
        core_at(i)->where = WHERE_IDLE; /* not the previous run's WHERE_FINISHED */
    for (int i = 0; i < n; i++) {
        core_at(i)->arrivals = 0;
        core_at(i)->in_run = &run;
    }
    if (!run.nested)
        hooks_run_begin(n);
    /* run.coro before any coroutine runs: their barriers read it */
    run.coro = use_coro(first);
    if (run.coro) {
        /* a group per worker, counted before any core runs */
        int workers = coro_start(cores, stride, n, first, ebsp_stack_bytes, run_core);
        if (workers > 0 && make_groups(workers, coro_home) == 0) {
            coro_count_rounds(&run.gen);
            coro_go();
            run.started = n - first;
            return;
        }
        if (workers > 0)
            coro_cancel();
    }
    run.coro = 0; /* could not start them (no memory): threads */
    run.spin_yields = n <= SPIN_THREADS_PER_CPU * cpu_count() ? SPIN_YIELDS : 0;
    make_groups(1, NULL);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, ebsp_stack_bytes);
    size_t slice = 0, page = (size_t)sysconf(_SC_PAGESIZE);
    char *stacks = thread_stacks(n - first, &slice);
    int i = first;
    for (; i < n; i++) {
        if (stacks)
            pthread_attr_setstack(&attr, stacks + (size_t)(i - first) * slice + page, slice - page);
        if (pthread_create(&core_at(i)->thread, &attr, core_main, core_at(i)) != 0)
            break;
    }
    pthread_attr_destroy(&attr);
    run.started = i - first;
    if (i < n) {
        hooks_message("ebsp: ERROR: could not start a thread per core; lower the core count or EBSP_STACK_KB\n");
        sched_stop();
        atomic_fetch_add(&run.finished, n - i);
    }
}

void sched_host_loop(void)
{
    host_loop();
}

int sched_join(void)
{
    if (run.coro)
        coro_join();
    else
        for (int i = run.first; i < run.first + run.started; i++)
            pthread_join(core_at(i)->thread, NULL);
    if (run.stacks)
        munmap(run.stacks, run.stacks_size);
    run.stacks = NULL;
    if (!run.nested)
        hooks_run_end();
    int ok = !atomic_load(&run.stopped);
    run.cores = NULL;
    free_groups();
    return ok;
}

int sched_run(struct sched_core *cores, size_t stride, int n, int first_pid)
{
    sched_start(cores, stride, n, first_pid, 0);
    host_loop();
    return sched_join();
}

/* A nested section's run: a run of its own, of thread cores (a coroutine
 * core that starts one runs its pid 0 on its worker, which waits with it),
 * without the hooks of a run (what they set up is the outer run's) and
 * without rounds with other processes. */
struct sched_run *sched_nest(void)
{
    struct sched_run *r = calloc(1, sizeof *r);
    if (r) {
        r->nested = 1;
        r->outer = &run;
        atomic_fetch_add(&run.nests, 1);
        run_of_thread = r;
    }
    return r;
}

void sched_unnest(void)
{
    struct sched_run *r = &run;
    if (!r->nested)
        return;
    sched_enter(r->outer);
    atomic_fetch_sub(&run.nests, 1);
    free(r);
}

void sched_enter(struct sched_run *r)
{
    run_of_thread = r == &outer_run ? NULL : r;
}
