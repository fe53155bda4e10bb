/*
 * mpi_floor.c -- Open MPI's own floor for a BSP superstep, measured in the
 * same run as libebsp's numbers (make bench-mpi): an MPI_Barrier (the
 * floor of an empty superstep), and an MPI_Alltoallv of the bytes of a
 * superstep of 8-byte puts (the floor of put g), and the same after the
 * copy BSPlib's bsp_put makes at the call (the source may change once it
 * returns): the bytes copied first in one memcpy (the floor of a block
 * put), or word by word through a call each (the floor of any library
 * whose put is a function call). Prints RESULT lines.
 *     mpicc -O2 mpi_floor.c -o mpi_floor && mpirun -n R ./mpi_floor [h] [seconds] [bytes] [calls]
 * h: the words each rank sends to other ranks in one superstep, spread
 * evenly over them, of bytes each (default 8: the payload of an 8-byte
 * put; 24 is libebsp's record of one); calls: the puts a rank makes in
 * that superstep, to its own pids too (default h).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double per_call(void (*fn)(void *), void *arg, double seconds)
{
    long n = 1;
    for (;;) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (long i = 0; i < n; i++)
            fn(arg);
        double t = MPI_Wtime() - t0;
        MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (t >= seconds)
            return t / (double)n;
        n *= 2;
    }
}

static void barrier(void *arg)
{
    (void)arg;
    MPI_Barrier(MPI_COMM_WORLD);
}

struct a2a {
    char *send, *recv, *src; /* src: what a program would put, copied into send at the call */
    long total, words, bytes, calls;
    int *counts, *displs;
};

static void alltoallv(void *arg)
{
    struct a2a *a = arg;
    MPI_Alltoallv(a->send, a->counts, a->displs, MPI_BYTE, a->recv, a->counts, a->displs, MPI_BYTE, MPI_COMM_WORLD);
}

static void copy_alltoallv(void *arg)
{
    struct a2a *a = arg;
    memcpy(a->send, a->src, (size_t)a->total);
    alltoallv(arg);
}

/* one word of a put, appended through a call as a library's bsp_put does
 * (the size known at the call only: a word's is copied as a word) */
static void append(char *dst, const char *src, long n)
{
    if (n == 8)
        memcpy(dst, src, 8);
    else
        memcpy(dst, src, (size_t)n);
}
static void (*volatile append_word)(char *, const char *, long) = append;

static void words_alltoallv(void *arg)
{
    struct a2a *a = arg;
    for (long i = 0, w = 0; i < a->calls; i++, w = w + 1 < a->words ? w + 1 : 0)
        append_word(a->send + w * a->bytes, a->src + w * a->bytes, a->bytes);
    alltoallv(arg);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, ranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    long h = argc > 1 ? atol(argv[1]) : 16384;
    double seconds = argc > 2 ? atof(argv[2]) : 0.3;
    long bytes = argc > 3 ? atol(argv[3]) : 8;
    long calls = argc > 4 ? atol(argv[4]) : h; /* the puts a rank makes, its own pids' included */
    struct a2a a;
    a.counts = calloc((size_t)ranks, sizeof(int));
    a.displs = calloc((size_t)ranks, sizeof(int));
    long per = ranks > 1 ? h / (ranks - 1) : 0;
    long total = 0;
    for (int r = 0; r < ranks; r++) {
        a.counts[r] = r == rank ? 0 : (int)(per * bytes);
        a.displs[r] = (int)total;
        total += a.counts[r];
    }
    a.total = total;
    a.bytes = bytes;
    a.words = per * bytes > 0 ? total / bytes : 0;
    a.calls = a.words > 0 ? calls : 0;
    a.send = malloc((size_t)total + 1);
    a.recv = malloc((size_t)total + 1);
    a.src = malloc((size_t)total + 1);
    /* real bytes in touched pages, as a BSP program's: untouched pages
     * all map the one zero page, which MPI would copy from cache */
    memset(a.send, 0x5a, (size_t)total + 1);
    memset(a.recv, 0xa5, (size_t)total + 1);
    memset(a.src, 0x3c, (size_t)total + 1);
    double tb = per_call(barrier, NULL, seconds);
    double ta = per_call(alltoallv, &a, seconds);
    double tc = per_call(copy_alltoallv, &a, seconds);
    double tw = per_call(words_alltoallv, &a, seconds);
    if (rank == 0) {
        printf("RESULT mpi_ranks %d\n", ranks);
        printf("RESULT mpi_barrier_us %.4f us\n", tb * 1e6);
        printf("RESULT mpi_alltoallv_us %.4f us (%ld words of %ld bytes to each other rank)\n", ta * 1e6, per, bytes);
        printf("RESULT mpi_alltoallv_g_ns %.4f ns/word\n", h ? ta * 1e9 / (double)h : 0.0);
        printf("RESULT mpi_copy_alltoallv_us %.4f us (one memcpy of the bytes, then the MPI_Alltoallv)\n", tc * 1e6);
        printf("RESULT mpi_words_alltoallv_us %.4f us (a call per word into the send buffer, then the MPI_Alltoallv)\n", tw * 1e6);
    }
    MPI_Finalize();
    return 0;
}
