/*
 * hello.c -- the classic BSPlib hello world: every core says hello.
 *
 * bsp_begin is the first statement of main and there is no bsp_init, so
 * the other cores run main from its start as well (libebsp finds main
 * because bspcc links with -rdynamic). Code after bsp_end runs on pid 0.
 * Under mpirun every process runs main; those of the ranks other than 0
 * end at bsp_end.
 *     bspcc hello.c -o hello && ./hello        (bsprun -n 4 ./hello: 4 cores)
 *     bsprun -n 8 --ranks 2 ./hello            (mpirun: 2 ranks of 4 cores)
 */
#include <bsp.h>
#include <stdio.h>

int main(void)
{
    bsp_begin(bsp_nprocs());
    printf("Hello from core %u of %u\n", (unsigned)bsp_pid(), (unsigned)bsp_nprocs());
    bsp_end();
    return 0;
}
