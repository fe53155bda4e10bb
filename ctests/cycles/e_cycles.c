#include <e_bsp.h>

int data[1024]; /* some per-instance memory */

int main(void)
{
    bsp_begin();
    data[bsp_pid()]++;
    bsp_sync();
    bsp_end();
    return 0;
}
