/* What the benchmarks' C programs share to time and rank their trials. */
#ifndef BENCH_TIMING_H
#define BENCH_TIMING_H

#include <time.h>

/* Seconds on the monotonic clock. */
static inline double wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* qsort's order of doubles. */
static inline int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#endif
