/* A stream too small for what a core moves up, and tokens larger than
 * its token size: the board's warning and errors, and what the host sees. */
#include <host_bsp.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (!bsp_init("e_overflow.elf", argc, argv) || !bsp_begin(1))
        return 1;
    int data[4] = {1, 2, 3, 4};
    bsp_stream_create(sizeof data, 16, data);      /* stream 0, unused */
    int *s = bsp_stream_create(64, 32, NULL);      /* stream 1: 64 + 2*8 + 8 = 88 bytes */
    if (!ebsp_spmd())
        return 1;
    /* the 0-byte token at the start wrote (0,0) at byte 8, over the first
     * two ints of the 40-byte token */
    printf("first header: (%d,%d)\n", s[0], s[1]);
    printf("at byte 8: %d %d ... %d, at byte 48: (%d,%d) %d, at byte 80: (%d,%d)\n",
           s[2], s[3], s[2 + 7], s[12], s[13], s[14], s[20], s[21]);
    bsp_end();
    return 0;
}
