#include <e_bsp.h>

int main(void)
{
    bsp_begin();
    ebsp_message("pid %d of %d", bsp_pid(), bsp_nprocs());
    bsp_end();
    return 0;
}
