/* Two cores spinning on each other while one worker rests (e_rest.c). */
#include <host_bsp.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (!bsp_init("e_rest.elf", argc, argv) || !bsp_begin(2))
        return 1;
    int ok = ebsp_spmd();
    bsp_end();
    printf("host: spmd %s\n", ok ? "ok" : "failed");
    return ok ? 0 : 1;
}
