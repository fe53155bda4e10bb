/* The LQCD benchmark: runs e_lqcd_bench on all cores of the mesh
 * (EBSP_MESH=4x4 or 8x8) for 1 KiB and 64 KiB halos and prints one line per
 * size: microseconds per 8-direction halo exchange and per sumDouble, and
 * the floor of an exchange measured in the same run: its bytes (cores x 8
 * directions x halo) copied by memcpy, from buffers as many and as big, on
 * one thread per CPU. A channel's data must land in the receiver's buffer,
 * so no exchange can be cheaper than that copy. */
#define _GNU_SOURCE
#include <host_bsp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_lqcd.h"

static int run(struct lqcd_params par, struct lqcd_results *res)
{
    if (!bsp_init("e_lqcd_bench.elf", 0, NULL) || !bsp_begin(bsp_nprocs()))
        return 0;
    int tagsize = sizeof(int), tag = 0, status;
    ebsp_set_tagsize(&tagsize);
    for (int s = 0; s < bsp_nprocs(); s++)
        ebsp_send_down(s, &tag, &par, sizeof par);
    int ok = ebsp_spmd();
    ebsp_get_tag(&status, &tag);
    ebsp_move(res, sizeof *res);
    bsp_end();
    return ok && status == (int)sizeof *res;
}

struct copier {
    pthread_t thread;
    char *in, *out;
    size_t bytes;
    int first, cores, step, exchanges;
};

static void *copy_exchanges(void *arg)
{
    struct copier *c = arg;
    for (int k = 0; k < c->exchanges; k++)
        for (int core = c->first; core < c->cores; core += c->step)
            for (int d = 0; d < DIRS; d++) {
                size_t at = ((size_t)core * DIRS + (size_t)d) * c->bytes;
                memcpy(c->in + at, c->out + at, c->bytes);
            }
    return NULL;
}

/* Seconds per exchange of the copy floor (see the top), median of TRIALS;
 * -1 without memory or threads. */
static double copy_floor(int cores, struct lqcd_params par)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int threads = cpus < 1 ? 1 : (cpus > cores ? cores : (int)cpus);
    size_t total = (size_t)cores * DIRS * (size_t)par.bytes;
    char *in = malloc(total), *out = malloc(total);
    struct copier cs[threads];
    double t[TRIALS];
    int ok = in && out;
    if (ok) {
        memset(in, 0, total);
        memset(out, 1, total);
    }
    for (int trial = 0; ok && trial < TRIALS; trial++) {
        double t0 = wall();
        int started = 0;
        for (; started < threads; started++) {
            cs[started] = (struct copier){.in = in, .out = out, .bytes = (size_t)par.bytes, .first = started,
                                          .cores = cores, .step = threads, .exchanges = par.exchanges};
            if (pthread_create(&cs[started].thread, NULL, copy_exchanges, &cs[started]) != 0)
                break;
        }
        for (int i = 0; i < started; i++)
            pthread_join(cs[i].thread, NULL);
        ok = started == threads;
        t[trial] = (wall() - t0) / par.exchanges;
    }
    free(in);
    free(out);
    if (!ok)
        return -1;
    qsort(t, TRIALS, sizeof *t, cmp);
    return t[TRIALS / 2];
}

int main(void)
{
    /* the host's bsp_nprocs is 0 before bsp_init, as on the board */
    if (!bsp_init("e_lqcd_bench.elf", 0, NULL))
        return 1;
    int p = bsp_nprocs();
    bsp_end();
    static const int sizes[] = {1024, 65536};
    for (int i = 0; i < 2; i++) {
        struct lqcd_params par = {
            .bytes = sizes[i],
            .exchanges = sizes[i] <= 1024 ? (p <= 16 ? 2000 : 300) : (p <= 16 ? 200 : 40),
            .sums = p <= 16 ? 4000 : 1000,
        };
        struct lqcd_results r;
        if (!run(par, &r)) {
            fprintf(stderr, "bench-lqcd: the run on %d cores failed\n", p);
            return 1;
        }
        printf("libebsp   %3d cores  %6d B  halo exchange %9.2f us   sumDouble %7.2f us", p, sizes[i],
               r.exchange * 1e6, r.sum * 1e6);
        double floor = copy_floor(p, par);
        if (floor > 0)
            printf("   (memcpy of its bytes %.2f us: %.2fx)", floor * 1e6, r.exchange / floor);
        printf("\n");
    }
    return 0;
}
