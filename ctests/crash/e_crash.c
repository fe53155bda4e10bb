#include <e_bsp.h>
#include <stdint.h>

int main(void)
{
    bsp_begin();
    ebsp_message("superstep 0");
    bsp_sync();
    bsp_sync();
    if (bsp_pid() == 2) {
        volatile int *bad = (int *)(uintptr_t)0x10;
        *bad = 1;
    }
    bsp_sync();
    bsp_end();
    return 0;
}
