/*
 * The coroutine scheduler (sched_coro.c) as sched_threads.c uses it: the
 * barrier logic stays there, this only runs cores as coroutines.
 */
#ifndef EBSP_CORO_H
#define EBSP_CORO_H

#include <stdatomic.h>
#include <stddef.h>

struct ebsp_core;

/* This build has a context switch (x86-64 without AddressSanitizer). */
int coro_supported(void);
/* Runs cores first..n-1 as coroutines, each calling run_core; 0, or -1
 * when they could not be started (nothing was). */
int coro_start(struct ebsp_core *cores, int n, int first, size_t stack_size, void (*run_core)(struct ebsp_core *));
/* Waits until every coroutine finished, frees the run. */
void coro_join(void);
/* The calling code runs on a coroutine. */
int coro_current(void);
/* Suspends the calling coroutine until *word != val (coro_wake_parked). */
void coro_park(_Atomic unsigned *word, unsigned val);
/* Makes every parked coroutine runnable; call after changing its word. */
void coro_wake_parked(void);

#endif
