/* The LQCD benchmark kernel: a 4D periodic grid (2x2x2x2 on 16 cores,
 * 4x4x2x2 on 64), a halo exchange in all 8 directions through persistent
 * channels, and sumDouble. Core 0 times TRIALS trials and sends the medians
 * up. */
#define _GNU_SOURCE
#include <e_bsp.h>
#include <lqcd_msg.h>
#include <stdlib.h>
#include <time.h>

#include "bench_lqcd.h"

static double median(double *v)
{
    qsort(v, TRIALS, sizeof *v, cmp);
    return v[TRIALS / 2];
}

int main(void)
{
    bsp_begin();
    int p = bsp_nprocs(), s = bsp_pid();
    struct lqcd_params par;
    int tag, status;
    bsp_get_tag(&status, &tag);
    bsp_move(&par, sizeof par);

    initMachine();
    int dims[4] = {2, 2, 2, 2};
    if (p == 64)
        dims[0] = dims[1] = 4;
    declareTopology(dims, 4, s);
    char *in = malloc((size_t)DIRS * par.bytes), *out = malloc((size_t)DIRS * par.bytes);
    void *ops[2 * DIRS];
    for (int d = 0; d < DIRS; d++) /* name d: arrives from direction d */
        ops[d] = declareReceive(in + d * par.bytes, par.bytes, d);
    for (int d = 0; d < DIRS; d++) {
        int dir = d / 2 + 1, rel = d % 2 ? -dir : dir; /* sending towards rel: arrives from -rel */
        ops[DIRS + d] = declareSendRelative(out + d * par.bytes, par.bytes, rel, d ^ 1);
    }
    for (int i = 0; i < 2 * DIRS; i++)
        if (!ops[i])
            bsp_abort("declaration %d: %s", i, getErrorString());

    double tx[TRIALS], ts[TRIALS];
    for (int t = 0; t < TRIALS; t++) {
        waitForBarrier();
        double t0 = wall();
        for (int k = 0; k < par.exchanges; k++) {
            for (int d = 0; d < DIRS; d++)
                startReceive(ops[d]);
            for (int d = 0; d < DIRS; d++)
                startSend(ops[DIRS + d]);
            if (waitForMultiple(ops, 2 * DIRS, 60000) != 1)
                bsp_abort("exchange: %s", getErrorString());
        }
        waitForBarrier();
        tx[t] = (wall() - t0) / par.exchanges;

        double x = s, sum = 0;
        waitForBarrier();
        t0 = wall();
        for (int k = 0; k < par.sums; k++)
            sum += sumDouble(x);
        ts[t] = (wall() - t0) / par.sums;
        if (sum != (double)par.sums * p * (p - 1) / 2)
            bsp_abort("sumDouble: wrong sum %g", sum);
    }
    if (s == 0) {
        struct lqcd_results r = {median(tx), median(ts)};
        ebsp_send_up(&tag, &r, sizeof r);
    }
    bsp_end();
    return 0;
}
