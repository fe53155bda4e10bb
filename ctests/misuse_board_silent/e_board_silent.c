#include <e_bsp.h>

static struct {
    int a[2], b[2];
} v;

int main(void)
{
    bsp_begin();
    int run = 0;
    bsp_move(&run, sizeof run);
    int pid = bsp_pid();
    v.b[0] = v.b[1] = 0;
    bsp_push_reg(&v, run == 3 || pid == 1 ? (int)sizeof v.a : -16);
    bsp_sync();
    int four[4] = {1, 2, 3, 4};
    bsp_put(1 - pid, four, &v, 0, pid == 0 ? (int)sizeof four : (int)sizeof v.a);
    bsp_sync();
    ebsp_message("run %d: b = %d %d", run, v.b[0], v.b[1]);
    bsp_pop_reg(&v);
    bsp_end();
    return 0;
}
