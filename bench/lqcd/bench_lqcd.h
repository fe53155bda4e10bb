/* Shared by the LQCD benchmark's host and kernel. */
#ifndef BENCH_LQCD_H
#define BENCH_LQCD_H

#include "../shared/timing.h"

enum { TRIALS = 5, DIRS = 8 };

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
