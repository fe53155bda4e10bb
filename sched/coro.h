/*
 * The coroutine scheduler (sched_coro.c, coro_workers.c, coro_balance.c)
 * as sched_run.c uses it: the barrier and the waits stay there, this only
 * runs cores as coroutines.
 */
#ifndef EBSP_CORO_H
#define EBSP_CORO_H

#include "scheduler.h"

#include <stdatomic.h>
#include <stddef.h>

/* Core i of a run's cores (scheduler.h: stride bytes apart). */
static inline struct sched_core *sched_core_at(struct sched_core *cores, size_t stride, int i)
{
    return (struct sched_core *)((char *)cores + (size_t)i * stride);
}

/* bytes for core stacks, below 2 GiB where the kernel gives them
 * (MAP_32BIT, as the emulated memories: emesh/lowmap_linux_amd64.go), so
 * that a kernel keeping the address of a local array in an int, as the
 * board's 32-bit programs do (EBSP's primitives example), gets it back;
 * anywhere else when that space is used up. NULL without memory. For
 * the coroutines' region and the threads' stacks alike. */
void *sched_map_stacks(size_t bytes);

/* This build has a context switch (x86-64 without AddressSanitizer). */
int coro_supported(void);
/* Prepares cores first..n-1 (of n, stride bytes apart) to run as coroutines, each calling run_core,
 * and starts the worker threads; returns the number of workers, or -1 when
 * they could not be started (nothing was). The cores run from coro_go on;
 * coro_cancel instead stops the workers and frees everything. With first
 * 1, core 0 is the calling thread's (already running on its own stack):
 * from coro_go on it runs on the workers like any core, while the thread
 * waits for it (coro_unadopt, coro_leave). Any other first: -1. */
int coro_start(struct sched_core *cores, size_t stride, int n, int first, size_t stack_size,
               void (*run_core)(struct sched_core *));
/* The worker 0..workers-1 whose queue core pid belongs to: its home. */
int coro_home(int pid);
/* The word that counts the barrier's rounds: the monitor compares how
 * fast it moves with the cores on one worker and spread (coro_balance.c,
 * "Resting workers"). Before coro_go. */
void coro_count_rounds(_Atomic unsigned *rounds);
void coro_go(void);
void coro_cancel(void);
/* Waits until every coroutine finished, frees the run. */
void coro_join(void);
/* On an adopted core 0 that finished: returns on its own thread once every
 * core finished. */
void coro_unadopt(void);
/* On an adopted core 0 leaving a stopped run: never returns, and its
 * thread sleeps for good (the run's owner ends the process). Returns at
 * once on any other core. */
void coro_leave(void);
/* sched_progress on a coroutine core; nothing elsewhere. */
void coro_progress(void);
/* The calling code runs on a coroutine. */
int coro_current(void);
/* A coroutine core yields its worker to the cores queued there and
 * returns 1; elsewhere returns 0 at once. */
int coro_yield(void);
/* Whether this run's workers, with those of the job's other processes on
 * this machine, are no more than its CPUs: no thread of the job waits
 * for a CPU that a polling worker holds. 0 without coroutines. */
int coro_owns_cpus(void);
/* A coroutine core parks until *word != val, or for about a millisecond
 * (the monitor wakes timed waiters every tick), or until the run stops,
 * and returns 1; elsewhere returns 0 at once. Whoever changes *word then
 * calls coro_poke or coro_poke_all. */
int coro_wait(_Atomic unsigned *word, unsigned val);
/* Suspends the calling coroutine until *word != val. The workers watch the
 * word their cores parked here wait on, so changing it is enough to wake
 * them, then coro_kick() for workers that sleep: every caller passes the
 * same word (the barrier generation). */
void coro_park(_Atomic unsigned *word, unsigned val);
void coro_kick(void);
/* Makes every parked coroutine runnable, whatever its word (the run
 * stops, clocks to look at). */
void coro_wake_parked(void);
/* Makes the parked coroutines of the worker of the run's core i (its
 * index in the run: pid minus the run's first pid) runnable if their word
 * changed (coro_wait); call after changing it. */
void coro_poke(int i);
/* coro_poke for the cores of every worker. */
void coro_poke_all(void);

#endif
