#include <e_bsp.h>

int main(void)
{
    bsp_begin();
    ebsp_message("done");
    bsp_end();
    return 0;
}
