/* bsp_stream_create streams are numbered 0, 1, 2 on their own; the
 * deprecated streams made in between are numbered per core. */
#include <host_bsp.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (!bsp_init("e_ids.elf", argc, argv) || !bsp_begin(4))
        return 1;
    int a[8], b[8], c[8], d[16];
    for (int i = 0; i < 8; i++) {
        a[i] = i;
        b[i] = 100 + i;
        c[i] = 200 + i;
    }
    for (int i = 0; i < 16; i++)
        d[i] = 1000 + i;
    ebsp_create_down_stream(d, 1, sizeof d, 16); /* core 1's stream 0 */
    bsp_stream_create(sizeof a, 16, a);          /* stream 0 */
    ebsp_create_up_stream(1, 64, 16);            /* core 1's stream 1 */
    bsp_stream_create(sizeof b, 16, b);          /* stream 1 */
    ebsp_create_down_stream(d + 8, 2, 32, 16);   /* core 2's stream 0 */
    bsp_stream_create(sizeof c, 16, c);          /* stream 2 */
    printf("ebsp_spmd returned %d\n", ebsp_spmd());
    bsp_end();
    return 0;
}
