/* char is unsigned on the board, on the ARM host as on the Epiphany cores:
 * the build flags (-funsigned-char) make it so here too. */
#include <host_bsp.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    char c = 200;
    const char *bytes = "\xc8";
    printf("host: %d %d %d\n", c > 0, bytes[0] > 0, (int)bytes[0]);
    if (!bsp_init("e_board_char.elf", argc, argv) || !bsp_begin(2))
        return 1;
    int ok = ebsp_spmd();
    bsp_end();
    return ok ? 0 : 1;
}
