/*
 * The scheduler's interface: how the cores of a run are run, whether as a
 * thread each or as coroutines on a few worker threads (EBSP_SCHED), and
 * everything a core does that depends on that: who it is, the clock, the
 * barrier, stopping the run, and waiting for a word to change. The
 * scheduler is a leaf: it names no feature and includes nothing above it
 * (gotests/layers_test.go checks). Features that need to act when a run
 * begins or ends, when a core enters a barrier, or on a core's thread
 * register hooks (sched_add_hooks); the scheduler's files call nothing
 * outside themselves and the C library but those hooks.
 *
 * Files: sched_run.c (a run's lifecycle, the barrier and host sync, the
 * wait primitive, stopping, the watchdog and the thread cores),
 * sched_coro.c, coro_workers.c and coro_balance.c (coroutine cores, coro.h:
 * starting and ending them, running them, the monitor), sched_hooks.c (the hooks),
 * sched_clock.c (the clock), futex.h.
 */
#ifndef EBSP_SCHEDULER_H
#define EBSP_SCHEDULER_H

#include <pthread.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* What a core is doing, for deadlock and divergence reports. */
enum ebsp_where {
    WHERE_IDLE = 0,
    WHERE_RUNNING,
    WHERE_SYNC,       /* waiting in bsp_sync */
    WHERE_BARRIER,    /* waiting in ebsp_barrier */
    WHERE_HOST_SYNC,  /* waiting in ebsp_host_sync */
    WHERE_END,        /* waiting in bsp_end */
    WHERE_FINISHED,   /* returned from its kernel */
    /* The first kind the layers above give their own barriers and waits
     * (capi/shim.h), up to 31: a barrier gathers its arrivals' kinds as
     * the bits of one word. */
    WHERE_FIRST_FREE
};

/* How a run stalled, for sched_hooks.report_stall: cores waiting in
 * different kinds of barrier, the watchdog, every core returned from its
 * kernel and none through bsp_end; or (>= 0) the enum ebsp_where of the
 * core that saw a deadlock. */
enum { STALL_DIVERGED = -1, STALL_TIMEOUT = -2, STALL_NO_END = -3 };

/* ---- a core ---- */

struct sched_run; /* one run of cores (sched_run.c) */

/* What the scheduler keeps of one core. It is the first member of the
 * library's core (capi/shim.h, struct ebsp_core), which the layers above
 * reach from it; the scheduler knows nothing else of it. The layer that
 * makes the cores sets entry, can_unwind and leave before a run; the rest
 * is the scheduler's. */
struct sched_core {
    volatile int where;      /* enum ebsp_where: sched_where */
    int group;               /* its group in the barrier's count (sched_run.c) */
    uint32_t arrivals;       /* barrier rounds it took part in during this run (sched_arrivals) */
    int can_unwind;          /* entry is C code compiled from a kernel file: a stop may longjmp */
    int (*entry)(void);      /* the core's kernel */
    void (*leave)(void);     /* if set, how the core leaves a stopped run instead (never returns):
                                the BSPlib face's pid 0, whose frames are its caller's (faces/bsplib) */
    pthread_t thread;        /* the thread that runs it (a coroutine core: its worker's, last switched in) */
    struct sched_run *in_run; /* the run it takes part in (sched_start, sched_adopt) */
    jmp_buf exit_jmp;        /* where a stopped kernel's longjmp lands (can_unwind) */
};

/* ---- identity and clock ---- */

/* The calling thread's core, or NULL on the host and foreign threads. */
extern __thread struct sched_core *sched_self;


/* CLOCK_MONOTONIC in nanoseconds: the clock of every wait and timestamp
 * (sched_clock.c). */
uint64_t ebsp_now_ns(void);

/* A slot of the thread control block, at offset from the thread pointer,
 * that belongs to the OS thread and not to the core it runs: coroutine
 * cores have control blocks of their own (per-core TLS, coro_tls.c), and
 * a worker entering a core copies this slot into the core's block. The Go
 * runtime's g is one (capi/gslot). Set once, before the first run. */
void sched_keep_thread_slot(long offset);

/* ---- settings ---- */

/* Stack bytes of each core thread (EBSP_STACK_KB) and the watchdog's
 * seconds without progress, 0 for none (EBSP_TIMEOUT): set by Go from the
 * environment (capi/env.go) before each run starts its cores. */
extern size_t ebsp_stack_bytes;
extern double ebsp_watchdog_seconds;
/* EBSP_SCHED: 1 for coroutine cores where they can be used (the default),
 * 0 for a thread per core; EBSP_WORKERS: coroutine worker threads, 0 for
 * one per CPU. Set like the two above. */
extern int ebsp_sched_coro;
extern int ebsp_workers;
/* The processes that share this machine's CPUs (an MPI job's ranks on
 * one node), 1 alone: the default workers, and whether waiting threads
 * spin, count this process's share of the CPUs. Set once, before the
 * first run. */
extern int ebsp_cpu_sharers;
/* EBSP_REST, one of enum ebsp_rest (env.RestNever, RestAuto, RestAlways:
 * capi/twins.go checks the values). */
enum ebsp_rest { REST_NEVER = 0, REST_AUTO = 1, REST_ALWAYS = 2 };
extern int ebsp_rest;

/* ---- a run ---- */

/* A run's cores are n structs of the layer above, stride bytes apart,
 * each beginning with its struct sched_core, the first at cores; they are
 * named by consecutive pids from first_pid (a process that runs a later
 * part of a section, an MPI rank, starts above 0). */
/* Runs all cores to completion; returns 1, or 0 when the run was aborted. */
int sched_run(struct sched_core *cores, size_t stride, int n, int first_pid);
/* sched_run in parts, for runs whose first core is run by a thread that
 * exists already (the BSPlib face: the thread calling bsp_begin is pid 0).
 * sched_adopt makes the calling thread run core 0, before sched_start;
 * sched_start starts cores first..n-1 (first 1), as threads, or as
 * coroutines with core 0 handed to the workers too (it comes back to its
 * thread in sched_release); sched_release: the adopted core has left the
 * run, and returns once every core did under coroutines (its thread
 * keeps sched_self until the caller clears it); sched_host_loop watches
 * the run (watchdog, host sync) until every core has left; sched_join
 * waits for the started threads and returns what sched_run returns. */
void sched_adopt(struct sched_core *core);
void sched_start(struct sched_core *cores, size_t stride, int n, int first_pid, int first);
void sched_release(void);
/* The adopted core leaves a stopped run: counts as finished and sleeps
 * for good (the run's owner ends the process). */
__attribute__((noreturn)) void sched_leave_forever(void);
void sched_host_loop(void);
int sched_join(void);
/* Nested runs (MulticoreBSP's nested SPMD sections, faces/bsplib): a
 * core of a running section starts a run of its own, of which it is core
 * 0. Every function of a run acts on the calling thread's run: the
 * outermost run, or the nested run that the thread's core or monitor
 * entered. sched_nest makes a new nested run the calling core's and
 * returns it (NULL without memory); then sched_adopt, sched_start,
 * sched_release and sched_join act on it as on a run of the BSPlib face,
 * and sched_unnest, once it is joined, frees it and takes the core back to
 * the run it left. A nested run's cores are threads (the calling core
 * stays what it is: a coroutine core runs it on its worker, which waits
 * with it), it runs no hooks of a run (run_begin, run_end, round: they
 * set up the outermost run) and never waits for other processes; the
 * run it was started from leaves the watchdog to it meanwhile.
 * sched_enter makes r the calling thread's run (a nested run's monitor). */
struct sched_run *sched_nest(void);
void sched_unnest(void);
void sched_enter(struct sched_run *r);
/* Blocks until every core arrived with the same kind (enum ebsp_where, or
 * one of the layers above from WHERE_FIRST_FREE on); returns 0, or -1 if
 * the run is being stopped (abort, deadlock). */
int sched_barrier(int kind);
/* sched_barrier of the cores of this process only, for steps that touch
 * no other process's data: no round hook (a world of several processes
 * completes no round with the others). The same as sched_barrier in a run
 * of one process. */
int sched_barrier_local(int kind);
/* Like sched_barrier (kind WHERE_HOST_SYNC), and once all arrived, fn, a
 * function of the host program, runs on the host thread (hooks' host_call;
 * what names it in reports) before any core goes on. With fn NULL, a
 * plain barrier. */
int sched_host_sync(void (*fn)(void), const char *what);
/* Stops the run: every waiting core is released with -1. */
void sched_stop(void);
int sched_stopped(void);
/* Leaves the kernel of the calling core when the run was stopped: longjmp
 * for kernel files, a plain return for registered kernels (whose frames may
 * belong to another language runtime and must not be skipped). */
void sched_leave_if_stopped(void);
/* What core pid is doing (enum ebsp_where), for reports. */
int sched_where(int pid);
/* The barrier rounds core pid took part in during this run: each barrier
 * it arrived at, of any kind, and leaving its kernel, which counts in the
 * round under way (engine.Probes.Arrivals). */
int sched_arrivals(int pid);

/* ---- waiting ---- */

/* The one wait of the library outside the barrier, for every layer above
 * (kept stable: they all wait with it). Waits until *word !=
 * val, or timeout_ns passed (0: no limit), or, on a core, the run stops;
 * returns 1 when the word changed, else 0. A coroutine core parks and its
 * worker runs other cores; a thread sleeps on the futex (a core in slices,
 * to see a stop). Whoever changes *word then calls sched_wake(word, pid)
 * with the waiting core's pid, or -1 when any core may wait on it.
 *
 * With word NULL it only lets timeout_ns pass, to the microsecond (DMA's
 * modelled transfer times): a coroutine core yields its worker until then;
 * a thread sleeps and waits out the last tens of microseconds awake. It
 * returns early (0) when the run stops. */
int sched_wait(_Atomic unsigned *word, unsigned val, uint64_t timeout_ns);
void sched_wake(_Atomic unsigned *word, int pid);
/* Lets other cores run for a moment, where a core polls: a coroutine core
 * yields its worker, a thread the CPU. */
void sched_pause(void);
/* The policy of a wait whose end the waiter must look for itself (a
 * condition that is announced on a word only once the waiter sleeps, or
 * messages from other processes: outside), between two looks; looks is
 * the count of looks so far, begun_ns when the wait began (ebsp_now_ns).
 * Returns 1 after letting the other cores run for a moment (look again
 * at once: the end is often a moment away, and waking a sleeper costs
 * its waker a system call), or 0: sleep now, in sched_wait, at most
 * sched_poll_slice(outside) before looking again. */
int sched_poll_pause(unsigned looks, uint64_t begun_ns, int outside);
uint64_t sched_poll_slice(int outside);
/* The calling core completed a step of its own that needed other cores
 * but no barrier (a wait for messages ended): the coroutine scheduler
 * counts such steps with the barrier's rounds when it decides whether
 * the cores run faster on one worker or spread (coro_balance.c, "Resting
 * workers"). A store to a line of the core's worker; nothing on threads. */
void sched_progress(void);

/* ---- run hooks ---- */

/* What a feature does at points of every run; any member may be NULL.
 * Features register once, at library load (a constructor), and the
 * scheduler calls them in registration order. */
struct sched_hooks {
    /* Before a run's first core runs: on the thread that adopts a core
     * (sched_adopt), and when the run starts its cores. */
    void (*prepare)(void);
    /* When a run of n cores starts its cores, and after they all left. */
    void (*run_begin)(int n);
    void (*run_end)(void);
    /* A core is about to run its kernel, on its thread or coroutine. */
    void (*core_begin)(struct sched_core *core);
    /* A core enters a barrier or leaves its kernel: what it started must
     * be complete for whoever looks after the barrier (DMA). Called on
     * every barrier: keep it to a few loads when there is nothing to do. */
    void (*settle)(struct sched_core *core);
    /* On each thread that runs cores (a core's or a worker), at its start
     * and end. */
    void (*thread_begin)(void);
    void (*thread_end)(void);
    /* Asks a core that computes without calling the library to leave its
     * kernel (the run was stopped). */
    void (*interrupt)(struct sched_core *core);
    /* The calling thread leaves the interrupt's signal handler without
     * returning (sched_leave_forever): let the signal in again, so that the
     * cores it runs next can still be interrupted. */
    void (*allow_interrupt)(void);
    /* Runs fn, a function of the host program, on the host thread (the
     * sync callback); what names it in reports. The first registered one
     * runs it; without any, it is called plainly. */
    void (*host_call)(void (*fn)(void), const char *what);
    /* The run stalled (STALL_* above): report it. */
    void (*report_stall)(int kind);
    /* A line of the scheduler's own for the user (a run that could not
     * start its cores), ending in a newline: print it. */
    void (*message)(const char *text);
    /* Every core of the run arrived at a barrier of kind (enum
     * ebsp_where); the last to arrive calls this before it releases the
     * others. A world of several processes (MPI) completes the round with
     * the other processes here. Returns 0, or -1 to stop the run. */
    int (*round)(int kind);
};
/* Registers hooks (kept by pointer: static storage). At most a few
 * features; returns 0, or -1 when the table is full. */
int sched_add_hooks(const struct sched_hooks *hooks);

/* For the scheduler's own files (sched_run.c, the coroutine files): run the
 * registered hooks of each kind. */
void hooks_prepare(void);
void hooks_run_begin(int n);
void hooks_run_end(void);
void hooks_core_begin(struct sched_core *core);
void hooks_settle(struct sched_core *core);
void hooks_thread_begin(void);
void hooks_thread_end(void);
void hooks_interrupt(struct sched_core *core);
void hooks_allow_interrupt(void);
void hooks_host_call(void (*fn)(void), const char *what);
void hooks_report_stall(int kind);
void hooks_message(const char *text);
int hooks_round(int kind);

#endif
