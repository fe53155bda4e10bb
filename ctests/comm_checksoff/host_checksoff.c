#include <host_bsp.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (!bsp_init("e_checksoff.elf", argc, argv) || !bsp_begin(3))
        return 1;
    printf("host: spmd %d\n", ebsp_spmd());
    bsp_end();
    return 0;
}
