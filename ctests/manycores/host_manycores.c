/* A 32x32 mesh: 1024 cores, each with its own kernel instance. */
#include <host_bsp.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (!bsp_init("e_manycores.elf", argc, argv))
        return 1;
    printf("available: %d\n", bsp_nprocs());
    if (!bsp_begin(bsp_nprocs()))
        return 1;
    printf("spmd: %d\n", ebsp_spmd());
    printf("spmd again: %d\n", ebsp_spmd());
    bsp_end();
    return 0;
}
