#include <e_bsp.h>
#include <stdlib.h>

int main(void)
{
    bsp_begin();
    const char *it = getenv("BENCH_ITERATIONS");
    int iters = it ? atoi(it) : 2000;
    for (int i = 0; i < 50; i++)
        bsp_sync();
    ebsp_raw_time();
    for (int i = 0; i < iters; i++)
        bsp_sync();
    unsigned sync_cycles = ebsp_raw_time();
    for (int i = 0; i < iters; i++)
        ebsp_barrier();
    unsigned barrier_cycles = ebsp_raw_time();
    if (bsp_pid() == 0)
        ebsp_message("cores %4d: empty bsp_sync %.2f us, ebsp_barrier %.2f us (mean of %d)",
                     bsp_nprocs(), sync_cycles / 600.0 / iters, barrier_cycles / 600.0 / iters, iters);
    bsp_end();
    return 0;
}
