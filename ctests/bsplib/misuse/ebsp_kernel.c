/* An EBSP kernel (registered function) that calls the BSPlib face. */
#include <e_bsp.h>

void call_bsplib_sync(void); /* misuse.c */

int ebsp_kernel_calling_bsplib(void)
{
    bsp_begin();
    if (bsp_pid() == 1)
        call_bsplib_sync();
    else
        bsp_sync();
    bsp_end();
    return 0;
}
