/* ebsp_free of what is not a block: at the board level only what the board
 * did not survive is reported (NULL, another core's local memory); a block
 * freed twice, a pointer inside a block (EBSP's LU example frees the
 * pointer ebsp_open_up_stream handed out) or into neither memory pass in
 * silence, as on the board. Under EBSP_CHECKS=strict all are reported.
 * The run goes on in both. */
#include <host_bsp.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (!bsp_init("e_free.elf", argc, argv) || !bsp_begin(2))
        return 1;
    ebsp_create_up_stream(0, 64, 16);
    ebsp_create_up_stream(1, 64, 16);
    printf("board: %d\n", ebsp_spmd());
    setenv("EBSP_CHECKS", "strict", 1);
    printf("strict: %d\n", ebsp_spmd());
    bsp_end();
    return 0;
}
