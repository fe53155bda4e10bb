/* Stream calls given a NULL handle: the board's calls read and wrote the
 * core's memory from address 0 on; here each is reported at every level,
 * does nothing, and the run goes on (a real stream still works). */
#include <host_bsp.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int data[4] = {1, 2, 3, 4};
    if (!bsp_init("e_stream_null.elf", argc, argv) || !bsp_begin(1))
        return 1;
    if (!bsp_stream_create(sizeof data, sizeof data, data))
        return 1;
    printf("run: %d\n", ebsp_spmd());
    bsp_end();
    return 0;
}
