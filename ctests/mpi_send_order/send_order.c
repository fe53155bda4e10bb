/*
 * Many small messages between ranks: every core sends n 4-byte BSMP
 * messages, numbered 0..n-1, to the next core, in each of a few supersteps;
 * the receiver checks it got each number of the superstep exactly once.
 * Under mpirun with EBSP_MPI_BLOCK=64 a block is tens of thousands of MPI
 * messages: a piece matched to the wrong receive shows here as a number
 * missing, repeated or foreign (or the block's records fail to parse).
 *   send_order N SUPERSTEPS
 */
#include <bsp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int n = 100000, steps = 2;

static void spmd(void)
{
    bsp_begin(bsp_nprocs());
    bsp_pid_t s = bsp_pid(), p = bsp_nprocs();
    unsigned char *seen = calloc((size_t)n, 1);
    int bad = 0;
    for (int step = 0; step < steps; step++) {
        for (int i = 0; i < n; i++) {
            uint32_t word = (uint32_t)step << 24 | (uint32_t)i;
            bsp_send((s + 1) % p, NULL, &word, sizeof word);
        }
        bsp_sync();
        bsp_nprocs_t count;
        bsp_size_t bytes;
        bsp_qsize(&count, &bytes);
        bad += (int)count != n;
        for (int i = 0; i < n; i++)
            seen[i] = 0;
        for (bsp_nprocs_t m = 0; m < count; m++) {
            uint32_t word = 0;
            bsp_move(&word, sizeof word);
            uint32_t i = word & 0xffffff;
            if (word >> 24 != (uint32_t)step || i >= (uint32_t)n || seen[i]++)
                bad++;
        }
    }
    printf("$%02u: %s\n", (unsigned)s, bad ? "WRONG MESSAGES" : "ok");
    free(seen);
    bsp_end();
}

int main(int argc, char **argv)
{
    if (argc > 1)
        n = atoi(argv[1]);
    if (argc > 2)
        steps = atoi(argv[2]);
    if (n < 1 || n > 1 << 24 || steps < 1 || steps > 255) {
        fprintf(stderr, "usage: send_order N SUPERSTEPS (N < 2^24, SUPERSTEPS < 256)\n");
        return 2;
    }
    bsp_init(spmd, argc, argv);
    spmd();
    return 0;
}
