/* Runs the cases of e_fault_small.c, each in a run of its own, at the
 * default and the strict check level. */
#include <host_bsp.h>
#include <stdio.h>
#include <stdlib.h>

enum { CORES = 2, CASES = 10 };

static int run(int c)
{
    int zero = 0;
    ebsp_set_tagsize(&zero);
    for (int pid = 0; pid < CORES; pid++)
        ebsp_send_down(pid, NULL, &c, sizeof c);
    return ebsp_spmd();
}

static void level(const char *checks, int argc, char **argv)
{
    setenv("EBSP_CHECKS", checks, 1);
    printf("host: EBSP_CHECKS=%s\n", checks);
    if (!bsp_init("e_fault_small.elf", argc, argv) || !bsp_begin(CORES))
        exit(2);
    if (!bsp_stream_create(64, 16, NULL))
        exit(3);
    for (int c = 1; c <= CASES; c++) {
        printf("host: case %d\n", c);
        fflush(stdout);
        printf("host: case %d: ebsp_spmd returned %d\n", c, run(c));
    }
    bsp_end();
}

int main(int argc, char **argv)
{
    level("board", argc, argv);
    level("strict", argc, argv);
    return 0;
}
