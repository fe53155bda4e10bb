#include <e_bsp.h>
#include <unistd.h>

int main(void)
{
    bsp_begin();
    bsp_sync();
    if (bsp_pid() == 1)
        _exit(4);
    bsp_sync();
    bsp_end();
    return 0;
}
