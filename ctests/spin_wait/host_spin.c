/* Sixteen cores spinning on each other's bsp_hpput (e_spin.c). */
#include <host_bsp.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (!bsp_init("e_spin.elf", argc, argv))
        return 1;
    int n = bsp_nprocs();
    if (!bsp_begin(n))
        return 1;
    int ok = ebsp_spmd();
    bsp_end();
    printf("host: %d cores relayed\n", n);
    return ok ? 0 : 1;
}
