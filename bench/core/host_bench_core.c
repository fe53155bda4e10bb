/* Benchmarks of the foundation: kernel load time (bsp_begin), run start-up
 * (ebsp_spmd of an empty kernel) and bsp_sync / ebsp_barrier latency.
 * Usage: host_bench_core NPROCS [ITERATIONS]  (set EBSP_MESH for > 16 cores) */
#define _POSIX_C_SOURCE 200809L
#include <host_bsp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 16;
    if (argc > 2)
        setenv("BENCH_ITERATIONS", argv[2], 1);
    if (!bsp_init("e_bench_core.elf", argc, argv))
        return 1;
    double t0 = now_ms();
    if (!bsp_begin(n))
        return 1;
    double t1 = now_ms();
    int ok = ebsp_spmd();
    double t2 = now_ms();
    bsp_end();
    double t3 = now_ms();
    printf("cores %4d: load %.2f ms (%.1f us/core), run %.2f ms, unload %.2f ms\n",
           n, t1 - t0, (t1 - t0) * 1e3 / n, t2 - t1, t3 - t2);
    return ok ? 0 : 1;
}
