/* Core 2 is in bsp_sync while the others wait in an LQCD collective. */
#include <e_bsp.h>
#include <lqcd_msg.h>

int main(void)
{
    bsp_begin();
    initMachine();
    if (bsp_pid() == 2)
        bsp_sync();
    else
        waitForBarrier();
    ebsp_message("not reached");
    bsp_end();
    return 0;
}
