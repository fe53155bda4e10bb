/* Runs the cases of e_wild_reg.c, each in a run of its own, at the
 * default and the strict check level: each request is reported, naming
 * its call, and the run stops cleanly; the next run works. */
#include <stdint.h>
#include <sys/mman.h>
#include <host_bsp.h>
#include <stdio.h>
#include <stdlib.h>
#include "../wild_page.h"

enum { CORES = 2, CASES = 12 };

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
    if (!bsp_init("e_wild_reg.elf", argc, argv) || !bsp_begin(CORES))
        exit(2);
    for (int c = 1; c <= CASES; c++) {
        printf("host: case %d\n", c);
        fflush(stdout);
        printf("host: case %d: ebsp_spmd returned %d\n", c, run(c));
    }
    bsp_end();
}


int main(int argc, char **argv)
{
    reserve_wild_page();
    level("board", argc, argv);
    level("strict", argc, argv);
    return 0;
}
