/*
 * The count the other cores pass to bsp_begin is pid 0's to decide, as in
 * MulticoreBSP, when bsp_init named the SPMD function: its hello_world.c
 * and parallel_loop.c compute the count from bsp_nprocs(), which on pid 0
 * (outside a section) is the cores available and on the others the
 * section's already, so the others ask for fewer cores.
 */
#include <bsp.h>
#include <stdio.h>

static int section;

static void one_fewer(void)
{
    bsp_begin(bsp_nprocs() - 1);
    printf("$%02u: section %d, core %u of %u\n", bsp_pid(), section, bsp_pid(), bsp_nprocs());
    bsp_end();
}

static void half(void)
{
    bsp_begin(bsp_nprocs() / 2);
    bsp_sync();
    printf("$%02u: section %d, core %u of %u\n", bsp_pid(), section, bsp_pid(), bsp_nprocs());
    bsp_end();
}

int main(int argc, char **argv)
{
    printf("%u cores available\n", bsp_nprocs());
    section = 1;
    bsp_init(one_fewer, argc, argv);
    one_fewer();
    printf("section 1 ended\n");
    section = 2;
    bsp_init(half, argc, argv);
    half();
    printf("done\n");
    return 0;
}
