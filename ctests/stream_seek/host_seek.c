#include <host_bsp.h>

int main(int argc, char **argv)
{
    if (!bsp_init("e_seek.elf", argc, argv) || !bsp_begin(1))
        return 1;
    int data[10][4];
    for (int k = 0; k < 10; k++)
        for (int j = 0; j < 4; j++)
            data[k][j] = k;
    bsp_stream_create(sizeof data, sizeof data[0], data);
    int ok = ebsp_spmd();
    bsp_end();
    return ok ? 0 : 1;
}
