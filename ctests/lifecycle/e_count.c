/* Globals are per core and keep their value across runs of one bsp_begin. */
#include <e_bsp.h>

static int runs;

int main(void)
{
    bsp_begin();
    runs++;
    ebsp_message("count: pid %d of %d, run %d", bsp_pid(), bsp_nprocs(), runs);
    bsp_end();
    return 0;
}
