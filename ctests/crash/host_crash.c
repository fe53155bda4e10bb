/* A core that dereferences a bad pointer kills the process, but first the
 * library names the core, its superstep and the faulting address. */
#include <host_bsp.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (!bsp_init("e_crash.elf", argc, argv) || !bsp_begin(4))
        return 1;
    printf("starting\n");
    ebsp_spmd();
    printf("not reached\n");
    return 0;
}
