/*
 * Our LQCD API's sumDouble (lqcd_msg.h) in a BSPlib section of P cores
 * (argument, default 16), timed like qmp_bench.c's QMP_sum_double: the
 * yardstick of "QMP_sum_double within 2x of sumDouble". Prints
 * "RESULT lqcd_sumDouble microseconds" (median of TRIALS runs of SUMS).
 */
#include <bsp.h>
#include <lqcd_msg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { TRIALS = 5, SUMS = 20000 };

static int cores = 16;

static double wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void spmd(void)
{
    bsp_begin(cores);
    int p = (int)bsp_nprocs(), s = (int)bsp_pid();
    if (initMachine() != 0)
        bsp_abort("lqcd_sum: initMachine failed\n");
    double t[TRIALS], x = s, total = 0;
    for (int i = 0; i < TRIALS; i++) {
        waitForBarrier();
        double t0 = wall();
        for (int k = 0; k < SUMS; k++)
            total += sumDouble(x);
        t[i] = (wall() - t0) / SUMS;
    }
    if (total != (double)TRIALS * SUMS * p * (p - 1) / 2)
        bsp_abort("lqcd_sum: wrong sum %g\n", total);
    qsort(t, TRIALS, sizeof *t, cmp);
    if (s == 0)
        printf("RESULT lqcd_sumDouble %.3f\n", t[TRIALS / 2] * 1e6);
    shutdownMachine();
    bsp_end();
}

int main(int argc, char **argv)
{
    if (argc > 1)
        cores = atoi(argv[1]);
    bsp_init(spmd, argc, argv);
    spmd();
    return 0;
}
