#include <e_bsp.h>

int main(void)
{
    bsp_begin();
    ebsp_message("found through EBSP_KERNEL_PATH");
    bsp_end();
    return 0;
}
