/* Cores waiting in different kinds of synchronization are reported. */
#include <host_bsp.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (!bsp_init("e_diverge.elf", argc, argv) || !bsp_begin(4))
        return 1;
    printf("run: %d\n", ebsp_spmd());
    bsp_end();
    return 0;
}
