#include <e_bsp.h>

static int run;

int main(void)
{
    bsp_begin();
    int s = bsp_pid();
    run++;
    ebsp_message("run %d start", run);
    bsp_sync();
    if (run == 1 && s == 3)
        bsp_abort("core %d gives up in superstep %d", s, 1);
    bsp_sync();
    ebsp_message("run %d done", run);
    bsp_end();
    return 0;
}
