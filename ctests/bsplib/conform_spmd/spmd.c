/*
 * BSPlib conformance: the SPMD model. Repeated sections of different
 * sizes in one program (1 core included), bsp_init called again with
 * another function, bsp_begin in main (the other cores run the SPMD
 * function), and code after bsp_end on pid 0 only. Globals are shared by
 * the cores (threads), as with MulticoreBSP.
 */
#include <bsp.h>
#include <stdio.h>

static bsp_nprocs_t P;
static int after_end[64]; /* counts how often each pid ran code after bsp_end */
static int section;

static void sum_pids(void)
{
    bsp_begin(P);
    bsp_pid_t s = bsp_pid();
    bsp_nprocs_t p = bsp_nprocs();
    unsigned total[64];
    bsp_push_reg(total, sizeof total);
    bsp_sync();
    for (bsp_pid_t t = 0; t < p; t++)
        bsp_put(t, &s, total, s * sizeof(unsigned), sizeof(unsigned));
    bsp_sync();
    unsigned sum = 0;
    for (bsp_pid_t t = 0; t < p; t++)
        sum += total[t];
    if (sum != p * (p - 1) / 2)
        bsp_abort("section %d: core %u: sum %u\n", section, (unsigned)s, sum);
    if (s == 0)
        printf("section %d: %u cores, sum of pids %u\n", section, (unsigned)p, sum);
    bsp_pop_reg(total);
    bsp_end();
    after_end[s]++; /* pid 0 only */
}

static void other(void)
{
    bsp_begin(P);
    bsp_sync();
    bsp_end();
}

int main(int argc, char **argv)
{
    bsp_init(sum_pids, argc, argv);
    bsp_nprocs_t sizes[] = {4, 1, 7, 2, 16};
    for (unsigned k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        P = sizes[k];
        section = (int)k + 1;
        sum_pids();
    }
    /* bsp_begin in main: the other cores run the function of bsp_init */
    bsp_init(other, argc, argv);
    P = 3;
    bsp_begin(P);
    printf("main is pid %u of %u\n", (unsigned)bsp_pid(), (unsigned)bsp_nprocs());
    bsp_sync();
    bsp_end();
    int others = 0;
    for (int i = 1; i < 64; i++)
        others += after_end[i];
    printf("code after bsp_end ran %d times on pid 0, %d times elsewhere\n", after_end[0], others);
    printf("cores available: %u\n", (unsigned)bsp_nprocs());
    return 0;
}
