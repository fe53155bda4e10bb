#include <e_bsp.h>

int main(void)
{
    bsp_begin();
    char c = 200;
    const char *bytes = "\xc8";
    ebsp_message("%d", c > 0);
    ebsp_message("%d %d", bytes[0] > 0, (int)bytes[0]);
    bsp_end();
    return 0;
}
