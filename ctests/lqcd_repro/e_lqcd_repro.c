/* Global sums whose result depends on the order of the additions, under
 * varying core timing: every core must get the bits of the sum in core
 * order, every time. Core 0 sends up a checksum of all results. */
#define _GNU_SOURCE
#include <e_bsp.h>
#include <lqcd_msg.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "repro.h"

static uint64_t bits(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

/* A different delay per core and step, so the cores arrive in another order each time. */
static void jitter(int pid, int k)
{
    unsigned h = (unsigned)(pid * 2654435761u) ^ (unsigned)(k * 40503u);
    if (h % 7 == 0) {
        struct timespec ts = {0, (long)(h % 50000)};
        nanosleep(&ts, NULL);
    } else {
        for (unsigned i = 0; i < h % 5; i++)
            sched_yield();
    }
}

int main(void)
{
    bsp_begin();
    int p = bsp_nprocs(), s = bsp_pid();
    initMachine();
    uint64_t check = 0;
    int wrong = 0;
    for (int k = 0; k < SUMS; k++) {
        jitter(s, k);
        double got = sumDouble(value(s, k, 0));
        wrong += bits(got) != bits(ordered(p, k, 0));
        check = check * 31 + bits(got);
        float f = sumFloat((float)value(s, k, 1));
        double fs = 0;
        for (int q = 0; q < p; q++)
            fs += (double)(float)value(q, k, 1);
        wrong += f != (float)fs;
        if (k % 10 == 0) {
            double a[ARRAY];
            for (int i = 0; i < ARRAY; i++)
                a[i] = value(s, k, i);
            jitter(s, k + 1);
            sumDoubleArray(a, ARRAY);
            for (int i = 0; i < ARRAY; i++) {
                wrong += bits(a[i]) != bits(ordered(p, k, i));
                check = check * 31 + bits(a[i]);
            }
            float fa[ARRAY];
            for (int i = 0; i < ARRAY; i++)
                fa[i] = (float)value(s, k, i);
            sumFloatArray(fa, ARRAY);
            for (int i = 0; i < ARRAY; i++) {
                double e = 0;
                for (int q = 0; q < p; q++)
                    e += (double)(float)value(q, k, i);
                wrong += fa[i] != (float)e;
            }
        }
    }
    int total = sumInt(wrong);
    if (s == 0) {
        uint64_t up[2] = {check, (uint64_t)total};
        int tag = 1;
        ebsp_send_up(&tag, up, sizeof up);
    }
    bsp_end();
    return 0;
}
