/* A pid beyond INT_MAX (bsp_pid_t is unsigned) is reported as the program
 * passed it, not as the negative int it would become. */
#include <bsp.h>
#include <limits.h>

static int x;

int main(void)
{
    bsp_begin(bsp_nprocs());
    bsp_push_reg(&x, sizeof x);
    bsp_sync();
    int y;
    if (bsp_pid() == 1)
        bsp_direct_get(UINT_MAX, &x, 0, &y, sizeof y);
    bsp_sync();
    bsp_end();
    return 0;
}
