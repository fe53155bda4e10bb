/* Shared by the LQCD benchmark's host and kernel. */
#ifndef BENCH_LQCD_H
#define BENCH_LQCD_H

#include <time.h>

enum { TRIALS = 5, DIRS = 8 };

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

struct lqcd_params {
    int bytes;     /* per direction */
    int exchanges; /* per trial */
    int sums;      /* sumDouble calls per trial */
};

/* Results, seconds per operation: the median over TRIALS of each. */
struct lqcd_results {
    double exchange, sum;
};

#endif
