/* Three supersteps of puts around a ring; trace_test.go traces two runs. */
#include <e_bsp.h>

int x[4];

int main(void)
{
    bsp_begin();
    int s = bsp_pid(), p = bsp_nprocs();
    bsp_push_reg(x, sizeof x);
    bsp_sync();
    for (int i = 0; i < 3; i++) {
        bsp_put((s + 1) % p, &s, x, i * (int)sizeof(int), sizeof s);
        bsp_sync();
    }
    ebsp_message("%d %d %d", x[0], x[1], x[2]);
    bsp_end();
    return 0;
}
