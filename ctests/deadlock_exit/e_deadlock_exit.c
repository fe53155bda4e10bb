#include <e_bsp.h>

static int run;

int main(void)
{
    bsp_begin();
    run++;
    bsp_sync();
    if (run == 1 && bsp_pid() == 2)
        return 0; /* leaves without bsp_end */
    bsp_sync();
    ebsp_message("run %d done", run);
    bsp_end();
    return 0;
}
