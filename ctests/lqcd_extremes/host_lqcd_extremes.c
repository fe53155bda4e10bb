/* The LQCD API at the extremes of its integer arguments (0, -1, INT_MIN,
 * INT_MAX for every one of every call), with handles that are not
 * channels (wild, inside a channel, on the stack, of an earlier run) and
 * with calls after shutdownMachine: each gets its error, none a crash. */
#include <host_bsp.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (!bsp_init("e_lqcd_extremes.elf", argc, argv) || !bsp_begin(4))
        return 1;
    fflush(stdout);
    int r = ebsp_spmd();
    fflush(stdout);
    printf("spmd: %d\n", r);
    fflush(stdout);
    r = ebsp_spmd(); /* the handles of the first run are gone */
    fflush(stdout);
    printf("spmd again: %d\n", r);
    bsp_end();
    return 0;
}
