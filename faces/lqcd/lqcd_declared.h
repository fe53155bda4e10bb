/*
 * The LQCD calls for a face built on the LQCD API (faces/qmp): a sum that
 * returns its status, and calls on channels it declared itself and keeps (declareReceive, declareSendTo): the
 * caller's own live channels, so they are not looked up among the live
 * handles (the public calls' check of a pointer a program hands over,
 * which was a fifth of a 16-core halo exchange of QMP). Errors as the
 * public calls' (getErrorNumber).
 */
#ifndef EBSP_FACES_LQCD_DECLARED_H
#define EBSP_FACES_LQCD_DECLARED_H

#include <stddef.h>

/* startSend or startReceive; 0, or -1 with the error set. */
int lqcd_start_declared(void *ch);
/* lqcd_start_declared of chans[0], chans[1], ... up to the first that
 * fails: how many started (count when all did). One call for a halo's
 * channels: a call of its own each was a tenth of a 16-core exchange. */
int lqcd_start_declared_many(void *chans[], int count);
/* testCompletion. */
int lqcd_test_declared(void *ch);
/* waitForMultiple (waitFor: count 1). */
int lqcd_wait_declared(void *chans[], int count, int milliseconds);
/* The channel is freed (NULL: nothing), its memory kept for the core's
 * next declarations: 0. -1 when it is in flight (started and not seen
 * complete) or a send to another MPI rank: it stays as it is until the
 * run ends. */
int lqcd_free_declared(void *ch);

/* sumDouble of *x, the sum left in *x: 0, or -1 with the error set (no
 * look at the error state after a sum that went right). */
int lqcd_sum_double(double *x);

/* Zeroed memory on cache lines of its own (free() frees it): for what
 * cores write to each other (a channel's state and lock, a handle's
 * sizes), which must not share a line with what another core reads in its
 * loops; NULL without memory. */
void *lqcd_calloc_lines(size_t size);

#endif
