/* bsp_hpput/bsp_hpget are answered from a per-core cache of remote
 * addresses: a registration that changes at a sync, or a new run, must
 * never be served from a stale entry. */
#include <host_bsp.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (!bsp_init("e_hpcache.elf", argc, argv) || !bsp_begin(4))
        return 1;
    for (int run = 1; run <= 3; run++)
        printf("run %d: %d\n", run, ebsp_spmd());
    bsp_end();
    return 0;
}
