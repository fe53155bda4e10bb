#include <host_bsp.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (!bsp_init("e_reqlog.elf", argc, argv) || !bsp_begin(4))
        return 1;
    int ok = ebsp_spmd();
    printf("host: spmd %d\n", ok);
    ok = ebsp_spmd(); /* a second run starts with empty request logs */
    printf("host: spmd %d\n", ok);
    bsp_end();
    return ok ? 0 : 1;
}
