#include <e_bsp.h>

static int run;
volatile unsigned long spin;

int main(void)
{
    bsp_begin();
    run++;
    bsp_sync();
    if (run == 1 && bsp_pid() == 1)
        for (;;)
            spin++;
    bsp_sync();
    ebsp_message("run %d done", run);
    bsp_end();
    return 0;
}
