#include <host_bsp.h>
#include <stdio.h>

int main(void)
{
    if (!bsp_init("e_lqcd_stop.elf", 0, NULL) || !bsp_begin(4))
        return 1;
    for (int run = 1; run <= 2; run++) {
        for (int pid = 0; pid < 4; pid++)
            ebsp_write(pid, &run, 0, sizeof run);
        printf("spmd: %d\n", ebsp_spmd());
    }
    bsp_end();
    return 0;
}
