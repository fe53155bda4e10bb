/* bsp_abort stops every core, ebsp_spmd returns 0, the next run is normal. */
#include <host_bsp.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (!bsp_init("e_abort.elf", argc, argv) || !bsp_begin(4))
        return 1;
    printf("run 1: %d\n", ebsp_spmd());
    printf("run 2: %d\n", ebsp_spmd());
    bsp_end();
    return 0;
}
