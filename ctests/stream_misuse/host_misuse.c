#include <host_bsp.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (!bsp_init("e_misuse.elf", argc, argv) || !bsp_begin(2))
        return 1;
    char data[256] = {0};
    bsp_stream_create(sizeof data, 64, data);            /* stream 0 */
    bsp_stream_create(40, 32, NULL);                     /* stream 1 */
    ebsp_create_down_stream(data, 0, sizeof data, 64);   /* stream 2: core 0's number 0 */
    ebsp_create_up_stream(0, 64, 16);                    /* stream 3: core 0's number 1 */
    printf("token size 8: %p\n", bsp_stream_create(64, 8, NULL));
    ebsp_create_down_stream(data, 2, 16, 16);            /* refused: no core 2 */
    int ok = ebsp_spmd();
    printf("ebsp_spmd returned %d\n", ok);
    bsp_end();
    return 0;
}
