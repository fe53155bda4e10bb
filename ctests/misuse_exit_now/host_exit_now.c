/* A core calling _exit ends the host program at once, without the exit
 * handlers that name a core's exit: the library names the core, its
 * superstep and the call first (its slot in the kernel is bound), and the
 * program's exit status is the one the core passed. */
#include <host_bsp.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (!bsp_init("e_exit_now.elf", argc, argv) || !bsp_begin(2))
        return 1;
    printf("before the run\n");
    fflush(stdout);
    printf("run: %d\n", ebsp_spmd());
    bsp_end();
    return 0;
}
