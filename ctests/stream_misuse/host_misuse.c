#include <host_bsp.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (!bsp_init("e_misuse.elf", argc, argv) || !bsp_begin(2))
        return 1;
    char data[256] = {0};
    bsp_stream_create(sizeof data, 64, data);          /* stream 0 */
    bsp_stream_create(40, 32, NULL);                   /* stream 1 */
    ebsp_create_down_stream(data, 0, sizeof data, 64); /* core 0's stream 0 */
    ebsp_create_up_stream(0, 64, 16);                  /* core 0's stream 1 */
    /* the board's own lines, on stdout */
    printf("token size 8: %p\n", bsp_stream_create(64, 8, NULL));
    ebsp_create_down_stream(data, 0, 16, 15);
    printf("up chunk size 15: %p\n", ebsp_create_up_stream(0, 64, 15));
    /* a core of the chip that bsp_begin did not start: made, never used */
    ebsp_create_down_stream(data, 3, 16, 16);
    /* a core the chip does not have: the board wrote past its tables */
    ebsp_create_down_stream(data, 99, 16, 16);
    ebsp_create_down_stream(data, -1, 16, 16);
    printf("up stream for core -1: %p\n", ebsp_create_up_stream(-1, 64, 16));
    int ok = ebsp_spmd();
    printf("ebsp_spmd returned %d\n", ok);
    bsp_end();
    return 0;
}
