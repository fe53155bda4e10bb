#include <e_bsp.h>

static int mine = -1; /* private per core: must equal the pid */

int main(void)
{
    bsp_begin();
    int s = bsp_pid();
    if (mine != -1 && mine != s)
        bsp_abort("core %d sees another core's global (%d)", s, mine);
    mine = s;
    for (int i = 0; i < 10; i++)
        bsp_sync();
    if (s == 0 || s == bsp_nprocs() - 1)
        ebsp_message("pid %d of %d, own global %d", s, bsp_nprocs(), mine);
    bsp_end();
    return 0;
}
