/* What the board let pass without a word is silent at the default level
 * and a BSP ERROR under EBSP_CHECKS=strict: a negative size for
 * bsp_push_reg (the board ignored nbytes), and a put past the size the
 * target registered (the board wrote on into what follows the variable). */
#include <host_bsp.h>
#include <stdio.h>
#include <stdlib.h>

static int run(int n)
{
    for (int pid = 0; pid < 2; pid++)
        ebsp_send_down(pid, NULL, &n, sizeof n);
    return ebsp_spmd();
}

int main(int argc, char **argv)
{
    if (!bsp_init("e_board_silent.elf", argc, argv) || !bsp_begin(2))
        return 1;
    printf("board: %d\n", run(1));
    setenv("EBSP_CHECKS", "strict", 1);
    printf("strict, negative size: %d\n", run(2));
    printf("strict, past the size: %d\n", run(3));
    bsp_end();
    return 0;
}
