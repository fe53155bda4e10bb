/*
 * The copy floor of qmp_bench.c's halo exchange: the memcpy of the same
 * bytes, in the same blocks, between buffers of the same sizes, with no
 * message passing around it. Each of NODES nodes has an 8-face send
 * buffer and an 8-face receive buffer (malloc'd, as the benchmark's); one
 * exchange copies face d of every node's send buffer into face d of its
 * neighbour's receive buffer: NODES * 8 blocks. Measured on one thread
 * (every block) and on two (each thread the blocks of half the nodes,
 * meeting only at the start and the end of a timed run), for 8 B, 1 KiB
 * and 64 KiB faces. Prints "RESULT copy1_<bytes> us" and "RESULT
 * copy2_<bytes> us" per exchange (median of TRIALS runs, k exchanges a
 * run, k doubled until a run takes MIN_SECONDS), as qmp_bench.c does.
 *
 *   copy_floor [nodes]   (default 16)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../shared/timing.h"

enum { TRIALS = 5, DIRS = 8, THREADS_MAX = 2 };
#define MIN_SECONDS 0.05

static int nodes = 16;

struct faces {
    size_t bytes;
    char **out, **in; /* [node]: DIRS faces each */
};

/* Copies the faces of nodes lo..hi-1 k times. */
static void copy_nodes(const struct faces *f, int lo, int hi, long k)
{
    for (long i = 0; i < k; i++)
        for (int q = lo; q < hi; q++)
            for (int d = 0; d < DIRS; d++) {
                int to = (q + 1 + d) % nodes; /* a neighbour; which one does not change the bytes moved */
                memcpy(f->in[to] + (size_t)d * f->bytes, f->out[q] + (size_t)d * f->bytes, f->bytes);
            }
}

struct part {
    const struct faces *f;
    int lo, hi;
    long k;
    pthread_barrier_t *meet;
};

static void *copy_part(void *arg)
{
    struct part *p = arg;
    pthread_barrier_wait(p->meet);
    copy_nodes(p->f, p->lo, p->hi, p->k);
    pthread_barrier_wait(p->meet);
    return NULL;
}

/* Seconds of k exchanges on `threads` threads, each its share of the nodes. */
static double timed(const struct faces *f, int threads, long k)
{
    if (threads == 1) {
        double t0 = wall();
        copy_nodes(f, 0, nodes, k);
        return wall() - t0;
    }
    pthread_barrier_t meet;
    pthread_barrier_init(&meet, NULL, (unsigned)threads);
    pthread_t helper[THREADS_MAX];
    struct part parts[THREADS_MAX];
    for (int t = 0; t < threads; t++)
        parts[t] = (struct part){f, nodes * t / threads, nodes * (t + 1) / threads, k, &meet};
    for (int t = 1; t < threads; t++)
        if (pthread_create(&helper[t], NULL, copy_part, &parts[t]) != 0) {
            fprintf(stderr, "copy_floor: no thread\n");
            exit(1);
        }
    pthread_barrier_wait(&meet);
    double t0 = wall();
    copy_nodes(f, parts[0].lo, parts[0].hi, k);
    pthread_barrier_wait(&meet);
    double t = wall() - t0;
    for (int t2 = 1; t2 < threads; t2++)
        pthread_join(helper[t2], NULL);
    pthread_barrier_destroy(&meet);
    return t;
}

static double measure(const struct faces *f, int threads)
{
    long k = 1;
    while (timed(f, threads, k) < MIN_SECONDS && k < (1L << 24))
        k *= 2;
    double t[TRIALS];
    for (int i = 0; i < TRIALS; i++)
        t[i] = timed(f, threads, k) / (double)k;
    qsort(t, TRIALS, sizeof *t, cmp);
    return t[TRIALS / 2];
}

int main(int argc, char **argv)
{
    if (argc > 1)
        nodes = atoi(argv[1]);
    if (nodes < THREADS_MAX) {
        fprintf(stderr, "copy_floor: at least %d nodes\n", THREADS_MAX);
        return 1;
    }
    static const size_t sizes[] = {8, 1024, 65536};
    for (int s = 0; s < 3; s++) {
        struct faces f = {sizes[s], calloc((size_t)nodes, sizeof(char *)), calloc((size_t)nodes, sizeof(char *))};
        for (int q = 0; q < nodes; q++) {
            f.out[q] = malloc(DIRS * f.bytes);
            f.in[q] = malloc(DIRS * f.bytes);
            if (!f.out[q] || !f.in[q]) {
                fprintf(stderr, "copy_floor: out of memory\n");
                return 1;
            }
            memset(f.out[q], 1, DIRS * f.bytes);
            memset(f.in[q], 0, DIRS * f.bytes);
        }
        for (int threads = 1; threads <= THREADS_MAX; threads++)
            printf("RESULT copy%d_%zu %.3f\n", threads, f.bytes, measure(&f, threads) * 1e6);
        for (int q = 0; q < nodes; q++) {
            free(f.out[q]);
            free(f.in[q]);
        }
        free(f.out);
        free(f.in);
    }
    return 0;
}
