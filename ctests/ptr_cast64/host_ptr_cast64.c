/* The host keeps the address bsp_stream_create returns in an unsigned. */
#include <host_bsp.h>
#include <stddef.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (!bsp_init("e_ptr_cast64.elf", argc, argv) || !bsp_begin(4))
        return 1;
    int token[4] = {41, 42, 43, 44};
    unsigned area = (unsigned)(size_t)bsp_stream_create(sizeof token, sizeof token, token);
    printf("stream area fits: %d, first int %d\n", area != 0, ((int *)(size_t)area)[2]);
    printf("run: %d\n", ebsp_spmd());
    bsp_end();
    return 0;
}
