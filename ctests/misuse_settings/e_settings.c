#include <e_bsp.h>

int main(void)
{
    bsp_begin();
    bsp_sync();
    ebsp_message("ran");
    bsp_end();
    return 0;
}
