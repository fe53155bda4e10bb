/* 1024 cores, one of which syncs once fewer than the others: a deadlock,
 * reported at once (on a loaded machine, 1024 threads yielding to each
 * other at every barrier once made such a run take more than 20 s). */
#include <bsp.h>

static int v[1024];

static void spmd(void)
{
    bsp_begin(bsp_nprocs());
    bsp_push_reg(v, sizeof v);
    bsp_sync();
    int p = (int)bsp_nprocs(), s = (int)bsp_pid(), n = s == 300 ? 4 : 5;
    for (int i = 0; i < n; i++) {
        bsp_put((unsigned)((s + 1) % p), &s, v, (size_t)s * sizeof(int), sizeof(int));
        bsp_sync();
    }
    bsp_end();
}

int main(int argc, char **argv)
{
    bsp_init(spmd, argc, argv);
    spmd();
    return 0;
}
