/*
 * bsp_begin as the first statement of main, without bsp_init: the other
 * cores run main from its start with the same arguments (the program is
 * linked with -rdynamic). Code after bsp_end runs on pid 0 only.
 */
#include <bsp.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    bsp_begin(bsp_nprocs());
    printf("$%02u: argc %d, argv[1] %s\n", (unsigned)bsp_pid(), argc, argc > 1 ? argv[1] : "-");
    bsp_sync();
    bsp_end();
    printf("after bsp_end\n");
    return 0;
}
