#include <host_bsp.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (!bsp_init("e_malloc.elf", argc, argv) || !bsp_begin(2))
        return 1;
    for (int run = 0; run < 2; run++) {
        printf("run %d\n", run);
        if (!ebsp_spmd())
            return 1;
    }
    bsp_end();
    return 0;
}
