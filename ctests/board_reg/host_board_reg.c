/* Three runs of the board-registration kernel on 4 cores. */
#include <host_bsp.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (!bsp_init("e_board_reg.elf", argc, argv) || !bsp_begin(4))
        return 1;
    for (int run = 1; run <= 3; run++)
        printf("run %d: %d\n", run, ebsp_spmd());
    bsp_end();
    return 0;
}
