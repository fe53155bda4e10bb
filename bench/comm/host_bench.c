/* The communication benchmark: runs e_bench on 2, 16 and 64 cores (needs
 * EBSP_MESH=8x8 or larger) and prints one table. */
#define _GNU_SOURCE
#include <host_bsp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

static double wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int run(int cores, struct bench_params par, double *res)
{
    if (!bsp_init("e_bench.elf", 0, NULL) || !bsp_begin(cores))
        return 0;
    int tagsize = sizeof(int), tag = 0;
    ebsp_set_tagsize(&tagsize);
    for (int s = 0; s < cores; s++)
        ebsp_send_down(s, &tag, &par, sizeof par);
    int ok = ebsp_spmd();
    int status;
    ebsp_get_tag(&status, &tag);
    ebsp_move(res, BENCH_RESULTS * sizeof(double));
    bsp_end();
    return ok && status == BENCH_RESULTS * (int)sizeof(double);
}

/* memcpy bandwidth of one thread on 64 MiB, best of 5. */
static double memcpy_gbs(void)
{
    size_t n = 64u << 20;
    char *a = malloc(n), *b = malloc(n);
    memset(a, 1, n);
    memset(b, 2, n);
    double best = 1e9;
    for (int i = 0; i < 5; i++) {
        double t0 = wall();
        memcpy(i % 2 ? a : b, i % 2 ? b : a, n);
        double t = wall() - t0;
        if (t < best)
            best = t;
    }
    free(a);
    free(b);
    return (double)n / best / 1e9;
}

int main(void)
{
    static const int cores[] = {2, 16, 64};
    double res[3][BENCH_RESULTS], unchecked[3], unchecked_batch[3];
    for (int i = 0; i < 3; i++) {
        int p = cores[i];
        struct bench_params par = {
            .syncs = p <= 2 ? 5000 : p <= 16 ? 1000 : 300,
            .words = p <= 2 ? 65536 : p <= 16 ? 16384 : 4096,
            .msgs = p <= 2 ? 65536 : p <= 16 ? 16384 : 4096,
            .reps = 3,
            .calls = 200000,
        };
        setenv("EBSP_CHECKS", "1", 1);
        if (!run(p, par, res[i])) {
            fprintf(stderr, "bench: run on %d cores failed (set EBSP_MESH=8x8)\n", p);
            return 1;
        }
        setenv("EBSP_CHECKS", "0", 1);
        par.only_put_call = 1;
        double r[BENCH_RESULTS];
        if (!run(p, par, r))
            return 1;
        unchecked[i] = r[R_PUT_CALL];
        unchecked_batch[i] = r[R_PUT_CALL_BATCH];
        unsetenv("EBSP_CHECKS");
    }
    printf("libebsp communication benchmark (wall clock, %ld CPUs online)\n", sysconf(_SC_NPROCESSORS_ONLN));
    printf("%-44s %12s %12s %12s\n", "", "2 cores", "16 cores", "64 cores");
    const char *rows[] = {
        "empty bsp_sync latency (us)",
        "bsp_put g, 8-byte words (ns/word)",
        "bsp_hpput g, 8-byte words (ns/word)",
        "bsp_put 64 KiB blocks (GB/s, all cores)",
        "bsp_hpput 64 KiB blocks (GB/s, all cores)",
        "bsp_send 16-byte payloads (messages/s)",
        "bsp_put call, checked (ns CPU)",
        "bsp_put call, 4096/superstep (ns CPU)",
    };
    const double scale[] = {1e6, 1e9, 1e9, 1, 1, 1, 1e9, 1e9};
    for (int r = 0; r < BENCH_RESULTS; r++) {
        printf("%-44s", rows[r]);
        for (int i = 0; i < 3; i++)
            printf(" %12.4g", res[i][r] * scale[r]);
        printf("\n");
    }
    printf("%-44s", "bsp_put g / cores (ns/word, whole machine)");
    for (int i = 0; i < 3; i++)
        printf(" %12.4g", res[i][R_PUT_G] * 1e9 / cores[i]);
    printf("\n%-44s", "bsp_put call, EBSP_CHECKS=0 (ns CPU)");
    for (int i = 0; i < 3; i++)
        printf(" %12.4g", unchecked[i] * 1e9);
    printf("\n%-44s", "bsp_put call, 4096/superstep, EBSP_CHECKS=0");
    for (int i = 0; i < 3; i++)
        printf(" %12.4g", unchecked_batch[i] * 1e9);
    printf("\n%-44s %12.4g\n", "memcpy, one thread, 64 MiB (GB/s)", memcpy_gbs());
    return 0;
}
