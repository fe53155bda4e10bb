/* A deprecated down stream: the host's 100 bytes are cut into chunks of
 * 32, 32, 32 and 4 bytes. */
#include <host_bsp.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (!bsp_init("e_legacy_down.elf", argc, argv) || !bsp_begin(2))
        return 1;
    int data[25];
    for (int i = 0; i < 25; i++)
        data[i] = i;
    ebsp_create_down_stream(data, 0, sizeof data, 32);
    printf("ebsp_spmd returned %d\n", ebsp_spmd());
    bsp_end();
    return 0;
}
