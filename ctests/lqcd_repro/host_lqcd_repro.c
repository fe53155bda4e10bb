/* Reproducibility of the LQCD global sums: three runs, each with 300
 * sumDouble/sumFloat and 30 array sums of values whose sum depends on the
 * order of the additions, under core timing that varies from run to run. */
#include <host_bsp.h>
#include <stdint.h>
#include <stdio.h>

#include "repro.h"

int main(int argc, char **argv)
{
    if (!bsp_init("e_lqcd_repro.elf", argc, argv) || !bsp_begin(bsp_nprocs()))
        return 1;
    int p = bsp_nprocs(), tagsize = sizeof(int), order_matters = 0;
    ebsp_set_tagsize(&tagsize);
    for (int k = 0; k < SUMS; k++)
        order_matters += ordered(p, k, 0) != reversed(p, k, 0);
    printf("adding in reverse core order changes %d of the %d sums\n", order_matters, SUMS);
    uint64_t first = 0;
    for (int run = 0; run < 3; run++) {
        if (!ebsp_spmd())
            return 1;
        int status, tag;
        uint64_t up[2] = {0, 1};
        ebsp_get_tag(&status, &tag);
        ebsp_move(up, sizeof up);
        if (run == 0)
            first = up[0];
        printf("run %d: %d sums differ from the sequential sum in core order on some core; checksum %s\n", run + 1,
               (int)up[1], up[0] == first ? "as in run 1" : "DIFFERS from run 1");
    }
    bsp_end();
    return 0;
}
