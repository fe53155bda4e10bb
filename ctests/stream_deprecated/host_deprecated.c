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
        ebsp_create_down_stream(data, s, sizeof data, 32); /* the core's stream 0 */
        up[s] = ebsp_create_up_stream(s, 5 * 16, 16);     /* 1: room for five 16-byte chunks */
        ebsp_create_down_stream(data, s, 100, 24);         /* 2 */
    }
    if (!ebsp_spmd())
        return 1;
    for (int s = 0; s < CORES; s++) {
        printf("core %d sent up:", s);
        for (int *h = up[s]; h[1] != 0; h = (int *)((char *)(h + 2) + h[1]))
            printf(" %d/%d", h[2], h[3]);
        printf("\n");
    }
    bsp_end();
    return 0;
}
