#include <host_bsp.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (!bsp_init("e_dma_old_bytes.elf", argc, argv) || !bsp_begin(bsp_nprocs()))
        return 1;
    int ok = ebsp_spmd();
    bsp_end();
    printf("run ok: %d\n", ok);
    return 0;
}
