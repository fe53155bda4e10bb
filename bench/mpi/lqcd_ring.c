/*
 * lqcd_ring.c -- a ring halo exchange with the LQCD message API inside a
 * BSPlib section: every core sends a buffer of B bytes to each of its two
 * ring neighbours and receives theirs, on persistent channels declared
 * once and started every iteration. Under mpirun the neighbours of a
 * rank's first and last cores are on other ranks. pid 0 prints
 *     RESULT lqcd_ring_us B T us
 * (T: one exchange, the median of several timed batches). Compare with
 * mpi_ring.c, the same exchange on Open MPI's persistent requests.
 *     bspcc -O2 lqcd_ring.c -o lqcd_ring
 *     mpirun -n R -x EBSP_RANK_CORES=C ./lqcd_ring [seconds=0.3] [bytes...]
 */
#include <bsp.h>
#include <lqcd_msg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double seconds = 0.3;
static int sizes[16] = {8, 1024, 65536}, nsizes = 3;

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Exchanges with both neighbours n times. */
static void exchange(void *recv[2], void *send[2], int n)
{
    for (int i = 0; i < n; i++) {
        startReceive(recv[0]);
        startReceive(recv[1]);
        startSend(send[0]);
        startSend(send[1]);
        void *all[4] = {recv[0], recv[1], send[0], send[1]};
        if (waitForMultiple(all, 4, -1) != 1)
            bsp_abort("lqcd_ring: %s\n", getErrorString());
    }
}

static void ring(int bytes, int name)
{
    int p = (int)bsp_nprocs(), s = (int)bsp_pid();
    char *out[2], *in[2];
    void *recv[2], *send[2];
    for (int d = 0; d < 2; d++) {
        out[d] = calloc(1, (size_t)bytes);
        in[d] = calloc(1, (size_t)bytes);
        recv[d] = declareReceive(in[d], bytes, name + d);
        send[d] = declareSendTo(out[d], bytes, (s + (d ? p - 1 : 1)) % p, name + d);
        if (!recv[d] || !send[d])
            bsp_abort("lqcd_ring: %s\n", getErrorString());
    }
    waitForBarrier();
    /* pid 0 picks the batch: about seconds / 10 */
    int n = 1;
    for (;;) {
        waitForBarrier();
        double t0 = bsp_time();
        exchange(recv, send, n);
        double t = bsp_time() - t0;
        int more = globalOr(s == 0 && t < seconds / 10);
        if (!more)
            break;
        n *= 2;
    }
    double times[9];
    for (int k = 0; k < 9; k++) {
        waitForBarrier();
        double t0 = bsp_time();
        exchange(recv, send, n);
        times[k] = (bsp_time() - t0) / n;
    }
    qsort(times, 9, sizeof times[0], cmp);
    if (s == 0)
        printf("RESULT lqcd_ring_us %d %.4f us\n", bytes, times[4] * 1e6);
    for (int d = 0; d < 2; d++) {
        free(out[d]);
        free(in[d]);
    }
}

static void spmd(void)
{
    bsp_begin(bsp_nprocs());
    if (initMachine() != 0)
        bsp_abort("lqcd_ring: initMachine failed\n");
    for (int i = 0; i < nsizes; i++)
        ring(sizes[i], 2 * i);
    bsp_sync();
    bsp_end();
}

int main(int argc, char **argv)
{
    if (argc > 1)
        seconds = atof(argv[1]);
    if (argc > 2) {
        nsizes = 0;
        for (int i = 2; i < argc && nsizes < 16; i++)
            sizes[nsizes++] = atoi(argv[i]);
    }
    bsp_init(spmd, argc, argv);
    spmd();
    return 0;
}
