#include <host_bsp.h>

int main(int argc, char **argv)
{
    if (!bsp_init("e_overlap.elf", argc, argv) || !bsp_begin(16))
        return 1;
    ebsp_spmd();
    bsp_end();
    return 0;
}
