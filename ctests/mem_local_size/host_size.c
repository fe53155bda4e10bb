#include <host_bsp.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (!bsp_init("e_size.elf", argc, argv) || !bsp_begin(1))
        return 1;
    char byte = 7;
    printf("write at 0xffff: %d\n", ebsp_write(0, &byte, 0xffff, 1));
    int ok = ebsp_spmd();
    bsp_end();
    return ok ? 0 : 1;
}
