/* Bad DMA transfers, each in a run of its own, under both check levels and
 * with EBSP_DMA_SYNC=1 (the copy inside ebsp_dma_push). A stopped run
 * returns 0; the program ends with exit status 1 as a host that checks
 * ebsp_spmd would. */
#include <host_bsp.h>
#include <stdio.h>
#include <stdlib.h>

enum { CORES = 2, CASES = 10 };

static int run(int c)
{
    int zero = 0;
    ebsp_set_tagsize(&zero);
    for (int pid = 0; pid < CORES; pid++)
        ebsp_send_down(pid, NULL, &c, sizeof c);
    return ebsp_spmd();
}

int main(int argc, char **argv)
{
    static const char *const checks[] = {"board", "strict"};
    static const char *const sync[] = {"0", "1"};
    int failed = 0;
    for (int k = 0; k < 2; k++)
        for (int s = 0; s < 2; s++) {
            setenv("EBSP_CHECKS", checks[k], 1);
            setenv("EBSP_DMA_SYNC", sync[s], 1);
            printf("host: EBSP_CHECKS=%s EBSP_DMA_SYNC=%s\n", checks[k], sync[s]);
            if (!bsp_init("e_fault_dma.elf", argc, argv) || !bsp_begin(CORES) ||
                !bsp_stream_create(4096, 64, NULL))
                return 2;
            for (int c = 1; c <= CASES; c++) {
                int ok = run(c);
                failed |= !ok;
                printf("host: case %d: ebsp_spmd returned %d\n", c, ok);
            }
            printf("host: healthy run returned %d\n", run(0));
            bsp_end();
        }
    return failed;
}
