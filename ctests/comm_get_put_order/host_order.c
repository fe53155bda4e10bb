#include <host_bsp.h>

int main(int argc, char **argv)
{
    if (!bsp_init("e_order.elf", argc, argv) || !bsp_begin(2))
        return 1;
    ebsp_spmd();
    bsp_end();
    return 0;
}
