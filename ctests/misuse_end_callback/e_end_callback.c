#include <e_bsp.h>

static int run;

int main(void)
{
    bsp_begin();
    run++;
    bsp_sync();
    ebsp_message("run %d", run);
    bsp_end();
    return 0;
}
