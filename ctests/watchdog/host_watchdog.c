/* EBSP_TIMEOUT: a core computing forever is reported and the run stopped;
 * the looping core is unwound and the next run works. */
#include <host_bsp.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (!bsp_init("e_watchdog.elf", argc, argv) || !bsp_begin(4))
        return 1;
    printf("run 1: %d\n", ebsp_spmd());
    printf("run 2: %d\n", ebsp_spmd());
    bsp_end();
    return 0;
}
