#include <host_bsp.h>
#include <stdio.h>

int main(void)
{
    if (!bsp_init("e_lqcd_stop.elf", 0, NULL) || !bsp_begin(4))
        return 1;
    printf("spmd: %d\n", ebsp_spmd());
    printf("spmd: %d\n", ebsp_spmd());
    bsp_end();
    return 0;
}
