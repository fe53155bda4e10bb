/* One stream moved down, sought and moved up in any order; the host then
 * reads what the cores left, in place. */
#include <host_bsp.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (!bsp_init("e_any_order.elf", argc, argv) || !bsp_begin(2))
        return 1;
    int data[24]; /* six tokens of four ints: token k starts with 4k */
    for (int i = 0; i < 24; i++)
        data[i] = i;
    int *s = bsp_stream_create(sizeof data, 16, data);
    if (!ebsp_spmd())
        return 1;
    printf("chain:");
    for (int *h = s;; h = (int *)((char *)(h + 2) + h[1])) {
        printf(" (%d,%d)", h[0], h[1]);
        if (h[1] == 0)
            break;
        printf(" %d", h[2]);
    }
    /* past the chain's end, the bytes are as the earlier moves left them */
    printf("\nat byte 48: (%d,%d) %d %d, at byte 64: (%d,%d)\n", s[12], s[13], s[14], s[15], s[16], s[17]);
    bsp_end();
    return 0;
}
