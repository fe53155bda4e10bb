/* Runs the cases of e_fault_send.c, each in a run of its own, at the
 * check levels where the engine copies them (at the default level the
 * first four are copied by the C side of the library, which reports a bad
 * pointer as a crash of the core). EBSP_CHECKS=0 leaves out the NULL
 * checks only where nothing would copy from NULL. A stopped run returns
 * 0; the program ends with exit status 1 as a host that checks ebsp_spmd
 * would. */
#include <host_bsp.h>
#include <stdio.h>
#include <stdlib.h>

enum { CORES = 2 };

static int run(int c)
{
    int zero = 0;
    ebsp_set_tagsize(&zero);
    for (int pid = 0; pid < CORES; pid++)
        ebsp_send_down(pid, NULL, &c, sizeof c);
    return ebsp_spmd();
}

static int level(const char *checks, int first, int last, char **argv, int argc)
{
    int failed = 0;
    setenv("EBSP_CHECKS", checks, 1);
    printf("host: EBSP_CHECKS=%s\n", checks);
    if (!bsp_init("e_fault_send.elf", argc, argv) || !bsp_begin(CORES))
        exit(2);
    for (int c = first; c <= last; c++) {
        int ok = run(c);
        failed |= !ok;
        printf("host: case %d: ebsp_spmd returned %d\n", c, ok);
    }
    printf("host: healthy run returned %d\n", run(0));
    bsp_end();
    return failed;
}

int main(int argc, char **argv)
{
    int failed = level("strict", 1, 6, argv, argc);
    failed |= level("board", 5, 6, argv, argc);
    failed |= level("0", 5, 10, argv, argc);
    return failed;
}
