#include <e_bsp.h>

int main(void)
{
    bsp_begin();
    if (bsp_pid() == 1)
        ebsp_barrier();
    else
        bsp_sync();
    ebsp_message("not reached");
    bsp_end();
    return 0;
}
