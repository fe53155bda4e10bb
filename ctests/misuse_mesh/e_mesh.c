#include <e_bsp.h>

int main(void)
{
    bsp_begin();
    bsp_end();
    return 0;
}
