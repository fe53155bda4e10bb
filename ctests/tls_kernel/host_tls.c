/* A kernel file's __thread variables, errno and pthread identity per core
 * (e_tls.c), on 16 cores, with the C library's per-thread state in use
 * from every core: run twice, as a host may. */
#include <host_bsp.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (!bsp_init("e_tls.elf", argc, argv) || !bsp_begin(16))
        return 1;
    int ok = ebsp_spmd() && ebsp_spmd();
    bsp_end();
    printf("host: spmd %s\n", ok ? "ok" : "failed");
    return ok ? 0 : 1;
}
