/* A core calling exit ends the host program (cores are threads of it); the
 * library names the core and its superstep first, and the program's exit
 * status is the one the core passed. */
#include <host_bsp.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (!bsp_init("e_exit.elf", argc, argv) || !bsp_begin(2))
        return 1;
    printf("before the run\n");
    printf("run: %d\n", ebsp_spmd());
    bsp_end();
    return 0;
}
