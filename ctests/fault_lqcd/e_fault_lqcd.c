/* declareTopology with an array the library cannot read: LQCD_ERR_ARG and
 * nothing else, as the LQCD calls report their misuse; the engine reads a
 * copy of the array, made in C. */
#include <e_bsp.h>
#include <lqcd_msg.h>
#include <stdio.h>

int main(void)
{
    bsp_begin();
    initMachine();
    int dims[1] = {bsp_nprocs()};
    if (bsp_pid() == 0) {
        int *volatile bad = (int *)0x10; /* volatile: gcc warns of a constant one */
        declareTopology(bad, 1, 0);
        printf("$00: error %d: %s\n", getErrorNumber(), getErrorString());
        clearError();
    }
    declareTopology(dims, 1, bsp_pid());
    ebsp_message("topology: error %d", getErrorNumber());
    shutdownMachine();
    bsp_end();
    return 0;
}
