/* Every core returns from its kernel without bsp_end: the board's host
 * waited for ever for their bsp_end; here it is reported like a core
 * leaving early, the run stops, and the next run works. */
#include <host_bsp.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (!bsp_init("e_no_end.elf", argc, argv) || !bsp_begin(4))
        return 1;
    printf("run 1: %d\n", ebsp_spmd());
    printf("run 2: %d\n", ebsp_spmd());
    bsp_end();
    return 0;
}
