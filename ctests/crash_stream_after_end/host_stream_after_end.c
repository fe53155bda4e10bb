/* A stream's area is valid until bsp_end (host_bsp.h), as on the board,
 * where bsp_end unmapped the shared memory: writing through it afterwards
 * crashes, and the library says what the address was. */
#include <host_bsp.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (!bsp_init("e_stream_after_end.elf", argc, argv) || !bsp_begin(2))
        return 2;
    int data[16] = {0};
    int *area = bsp_stream_create(sizeof data, 16, data);
    printf("area made: %d\n", area != NULL);
    printf("ebsp_spmd: %d\n", ebsp_spmd());
    printf("bsp_end: %d\n", bsp_end());
    fflush(stdout);
    area[2] = 1;
    printf("not reached\n");
    return 0;
}
