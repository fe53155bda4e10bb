#include <e_bsp.h>
#include <stdlib.h>

int main(void)
{
    bsp_begin();
    bsp_sync();
    if (bsp_pid() == 1) {
        ebsp_message("exiting");
        exit(3);
    }
    bsp_sync();
    bsp_end();
    return 0;
}
