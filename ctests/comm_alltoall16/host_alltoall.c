#include <host_bsp.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int tag = sizeof(int);
    if (!bsp_init("e_alltoall.elf", argc, argv) || !bsp_begin(bsp_nprocs()))
        return 1;
    ebsp_set_tagsize(&tag);
    int ok = ebsp_spmd();
    printf("host: %d cores, spmd %d\n", bsp_nprocs(), ok);
    bsp_end();
    return ok ? 0 : 1;
}
