/* Core 0 calls another collective than the others. */
#include <e_bsp.h>
#include <lqcd_msg.h>

int main(void)
{
    bsp_begin();
    initMachine();
    sumInt(1);
    if (bsp_pid() == 0)
        sumDouble(1.0);
    else
        waitForBarrier();
    ebsp_message("not reached");
    bsp_end();
    return 0;
}
