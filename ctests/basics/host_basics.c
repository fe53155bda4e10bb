/* Core basics: pid, nprocs, clocks, barrier, sync, host sync callback. */
#include <host_bsp.h>
#include <stdio.h>

static int host_syncs;
static void on_host_sync(void) { printf("host sync %d\n", ++host_syncs); }

int main(int argc, char **argv)
{
    if (!bsp_init("e_basics.elf", argc, argv) || !bsp_begin(16))
        return 1;
    ebsp_set_sync_callback(on_host_sync);
    int ok = ebsp_spmd();
    printf("spmd: %d, host syncs: %d\n", ok, host_syncs);
    ebsp_set_sync_callback(NULL);
    ok = ebsp_spmd(); /* host sync without a callback is a plain barrier */
    printf("spmd: %d, host syncs: %d\n", ok, host_syncs);
    bsp_end();
    return 0;
}
