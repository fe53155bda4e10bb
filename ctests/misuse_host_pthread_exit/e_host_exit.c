#include <e_bsp.h>

int main(void)
{
    bsp_begin();
    ebsp_message("before the host sync");
    ebsp_host_sync();
    ebsp_message("not reached");
    bsp_end();
    return 0;
}
