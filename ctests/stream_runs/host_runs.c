#include <host_bsp.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (!bsp_init("e_runs.elf", argc, argv) || !bsp_begin(2))
        return 1;
    int *area = bsp_stream_create(5 * 32, 32, NULL);
    for (int run = 0; run < 2; run++) {
        for (int pid = 0; pid < 2; pid++)
            ebsp_write(pid, &run, 0, sizeof run);
        printf("run %d\n", run);
        if (!ebsp_spmd())
            return 1;
        if (run == 0) {
            printf("host reads the chain:");
            for (int *h = area;; h = (int *)((char *)(h + 2) + h[1])) {
                printf(" (%d,%d)", h[0], h[1]);
                if (h[1] == 0)
                    break;
                printf(" %d..", h[2]);
            }
            printf("\n");
        }
    }
    bsp_end();
    return 0;
}
