/* The hello example: runs e_hello on every core of the mesh. */
#include <host_bsp.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (!bsp_init("e_hello.elf", argc, argv))
        return 1;
    int n = bsp_nprocs();
    if (!bsp_begin(n))
        return 1;
    int ok = ebsp_spmd();
    bsp_end();
    printf("host: ran on %d cores\n", n);
    return ok ? 0 : 1;
}
