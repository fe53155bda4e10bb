#include <host_bsp.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (!bsp_init("e_fault_lqcd.elf", argc, argv) || !bsp_begin(2))
        return 2;
    printf("ebsp_spmd: %d\n", ebsp_spmd());
    bsp_end();
    return 0;
}
