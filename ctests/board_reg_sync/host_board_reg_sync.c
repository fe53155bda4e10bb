/* Six runs of the board-registration race after a sync, on 16 cores. */
#include <host_bsp.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (!bsp_init("e_board_reg_sync.elf", argc, argv) || !bsp_begin(16))
        return 1;
    for (int run = 1; run <= 6; run++)
        printf("run %d: %d\n", run, ebsp_spmd());
    bsp_end();
    return 0;
}
