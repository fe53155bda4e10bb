#include <e_bsp.h>

static int run;

int main(void)
{
    bsp_begin();
    run++;
    bsp_sync();
    ebsp_message("run %d", run);
    if (run == 1)
        return 0; /* every core leaves without bsp_end */
    bsp_end();
    return 0;
}
