/* A sync callback that crashes: the process dies as it did, but first the
 * library says what crashed, as it does for a core. */
#include <host_bsp.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (!bsp_init("e_sync_callback.elf", argc, argv) || !bsp_begin(2))
        return 2;
    ebsp_set_sync_callback((void (*)())0x10);
    printf("starting\n");
    ebsp_spmd();
    printf("not reached\n");
    return 0;
}
