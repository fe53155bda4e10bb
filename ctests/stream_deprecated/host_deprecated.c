#include <host_bsp.h>
#include <stdio.h>

enum { CORES = 2, INTS = 40 };

int main(int argc, char **argv)
{
    if (!bsp_init("e_deprecated.elf", argc, argv) || !bsp_begin(CORES))
        return 1;
    int *up[CORES];
    for (int s = 0; s < CORES; s++) {
        int data[INTS];
        for (int i = 0; i < INTS; i++)
            data[i] = i + 100 * s;
        ebsp_create_down_stream(data, s, sizeof data, 32); /* core s's stream 0 */
        up[s] = ebsp_create_up_stream(s, 5 * 16, 16);      /* 1: five 16-byte chunks */
        ebsp_create_down_stream(data, s, 100, 24);         /* 2 */
    }
    if (!ebsp_spmd())
        return 1;
    /* an up stream is raw: the chunks follow each other, no headers */
    for (int s = 0; s < CORES; s++) {
        printf("core %d sent up:", s);
        for (int k = 0; k < 5; k++)
            printf(" %d/%d", up[s][4 * k], up[s][4 * k + 1]);
        printf("\n");
    }
    bsp_end();
    return 0;
}
