/* Cores that set different tag sizes: on the board each core kept its own
 * and the run went on (a tag is read with the reader's size); that is the
 * default here too. EBSP_CHECKS=strict holds them to the documented rule
 * (all cores set the same size in the same superstep). */
#include <host_bsp.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (!bsp_init("e_tagsize.elf", argc, argv) || !bsp_begin(2))
        return 1;
    printf("board: %d\n", ebsp_spmd());
    setenv("EBSP_CHECKS", "strict", 1);
    printf("strict: %d\n", ebsp_spmd());
    bsp_end();
    return 0;
}
