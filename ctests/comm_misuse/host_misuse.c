#include <host_bsp.h>
#include <stdio.h>

enum { CORES = 4, CASES = 15 };

static int run(int c)
{
    int zero = 0;
    ebsp_set_tagsize(&zero);
    for (int pid = 0; pid < CORES; pid++)
        ebsp_send_down(pid, NULL, &c, sizeof c);
    return ebsp_spmd();
}

int main(int argc, char **argv)
{
    if (!bsp_init("e_misuse.elf", argc, argv) || !bsp_begin(CORES))
        return 1;
    for (int c = 1; c <= CASES; c++)
        printf("host: case %d: ebsp_spmd returned %d\n", c, run(c));
    printf("host: healthy run returned %d\n", run(0));
    bsp_end();
    return 0;
}
