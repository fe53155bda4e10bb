/*
 * scale.c -- costs that must grow linearly (issue 33): the time per item
 * at n and at 16n items, whose ratio stays near 1 when the cost is linear
 * (a quadratic cost makes it near 16).
 *
 *   declare N   each core declares N receives and N sends (declareSendTo
 *               to the next core's names): the time per declaration
 *   msgs N      each core sends N 4-byte BSMP messages (bsp_send) to the
 *               other cores in one superstep: the time per message of the
 *               superstep (under mpirun, half of them cross ranks)
 *   block N     each core puts a block of N ints (bsp_put) into the next
 *               core's registered array in one superstep: the time per int
 *   regs N      each core registers N variables (bsp_push_reg), syncs,
 *               withdraws them in the order made (bsp_pop_reg), syncs: the
 *               time per registration
 *
 * pid 0 prints
 *     RESULT <mode> N T_per_item_us
 *
 *     bspcc -O2 scale.c -o scale
 *     ./scale P declare N        (one process)
 *     mpirun -n R -x EBSP_RANK_CORES=C ./scale P msgs N
 */
#include <bsp.h>
#include <lqcd_msg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int P = 4, N = 1000;
static const char *mode = "declare";

static void declare(void)
{
    int s = bsp_pid(), p = bsp_nprocs();
    char *rbuf = malloc((size_t)N * 4), *sbuf = malloc(4);
    initMachine();
    waitForBarrier();
    double t0 = bsp_time();
    for (int i = 0; i < N; i++)
        if (!declareReceive(rbuf + 4 * (size_t)i, 4, i))
            bsp_abort("declareReceive %d: %s\n", i, getErrorString());
    for (int i = 0; i < N; i++)
        if (!declareSendTo(sbuf, 4, (s + 1) % p, i))
            bsp_abort("declareSendTo %d: %s\n", i, getErrorString());
    waitForBarrier();
    double t = bsp_time() - t0;
    if (s == 0)
        printf("RESULT declare %d %.4f\n", N, t * 1e6 / (2.0 * N));
    shutdownMachine();
    free(rbuf);
    free(sbuf);
}

static void msgs(void)
{
    int s = bsp_pid(), p = bsp_nprocs();
    size_t tag = 0;
    bsp_set_tagsize(&tag);
    bsp_sync();
    double t0 = bsp_time();
    for (int i = 0; i < N; i++) {
        int v = i;
        bsp_send((s + 1 + i % (p - 1)) % p, NULL, &v, sizeof v);
    }
    bsp_sync();
    double t = bsp_time() - t0;
    unsigned count = 0;
    size_t bytes = 0;
    bsp_qsize(&count, &bytes);
    if (count != (unsigned)N)
        bsp_abort("pid %d received %u messages, want %d\n", s, count, N);
    if (s == 0)
        printf("RESULT msgs %d %.4f\n", N, t * 1e6 / N);
}

static void block(void)
{
    int s = bsp_pid(), p = bsp_nprocs();
    int *src = malloc((size_t)N * sizeof *src), *dst = malloc((size_t)N * sizeof *dst);
    for (int i = 0; i < N; i++)
        src[i] = s + i;
    bsp_push_reg(dst, (size_t)N * sizeof *dst);
    bsp_sync();
    double t0 = bsp_time();
    bsp_put((s + 1) % p, src, dst, 0, (size_t)N * sizeof *src);
    bsp_sync();
    double t = bsp_time() - t0;
    int from = (s + p - 1) % p;
    if (dst[0] != from || dst[N - 1] != from + N - 1)
        bsp_abort("pid %d: the block from %d is wrong\n", s, from);
    if (s == 0)
        printf("RESULT block %d %.4f\n", N, t * 1e6 / N);
    bsp_pop_reg(dst);
    bsp_sync();
    free(src);
    free(dst);
}

static void regs(void)
{
    char *vars = malloc((size_t)N);
    bsp_sync();
    double t0 = bsp_time();
    for (int i = 0; i < N; i++)
        bsp_push_reg(vars + i, 1);
    bsp_sync();
    for (int i = 0; i < N; i++)
        bsp_pop_reg(vars + i);
    bsp_sync();
    double t = bsp_time() - t0;
    if (bsp_pid() == 0)
        printf("RESULT regs %d %.4f\n", N, t * 1e6 / N);
    free(vars);
}

static void spmd(void)
{
    bsp_begin(P);
    if (!strcmp(mode, "declare"))
        declare();
    else if (!strcmp(mode, "msgs"))
        msgs();
    else if (!strcmp(mode, "regs"))
        regs();
    else
        block();
    bsp_end();
}

int main(int argc, char **argv)
{
    /* before bsp_init: under mpirun the other ranks run spmd in it */
    if (argc > 1)
        P = atoi(argv[1]);
    if (argc > 2)
        mode = argv[2];
    if (argc > 3)
        N = atoi(argv[3]);
    if (P < 2 || N < 1 || (strcmp(mode, "declare") && strcmp(mode, "msgs") && strcmp(mode, "block") && strcmp(mode, "regs"))) {
        fprintf(stderr, "usage: %s P declare|msgs|block|regs N\n", argv[0]);
        return 2;
    }
    bsp_init(spmd, argc, argv);
    spmd();
    return 0;
}
