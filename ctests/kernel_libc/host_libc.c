/* Per-core C library state in kernels (e_libc.c), on 4 cores. */
#include <host_bsp.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (!bsp_init("e_libc.elf", argc, argv) || !bsp_begin(4))
        return 1;
    int ok = ebsp_spmd();
    bsp_end();
    printf("host: spmd %s\n", ok ? "ok" : "failed");
    return ok ? 0 : 1;
}
