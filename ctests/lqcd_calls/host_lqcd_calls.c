/* Every call of the LQCD API on 16 cores (a 4x4 grid on the 4x4 mesh). */
#include <host_bsp.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (!bsp_init("e_lqcd_calls.elf", argc, argv) || !bsp_begin(bsp_nprocs()))
        return 1;
    printf("spmd: %d\n", ebsp_spmd());
    printf("spmd again: %d\n", ebsp_spmd()); /* a second run declares afresh */
    bsp_end();
    return 0;
}
