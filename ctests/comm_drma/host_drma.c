#include <host_bsp.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (!bsp_init("e_drma.elf", argc, argv) || !bsp_begin(bsp_nprocs()))
        return 1;
    int ok = ebsp_spmd();
    printf("host: spmd %d\n", ok);
    bsp_end();
    return ok ? 0 : 1;
}
