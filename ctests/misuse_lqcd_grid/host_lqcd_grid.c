/* getGridCoordinates and getGridHost with a NULL array fail with
 * LQCD_ERR_ARG, as lqcd_msg.h says for a NULL buffer, before and after a
 * topology; without a topology and with an array, LQCD_ERR_NO_TOPOLOGY. */
#include <host_bsp.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (!bsp_init("e_lqcd_grid.elf", argc, argv) || !bsp_begin(1))
        return 1;
    printf("run: %d\n", ebsp_spmd());
    bsp_end();
    return 0;
}
