#include <e_bsp.h>

int main(void)
{
    bsp_begin();
    int s = bsp_pid(), p = bsp_nprocs();
    float t0 = bsp_time();
    float h0 = ebsp_host_time();
    ebsp_raw_time();
    volatile double x = 0;
    for (int i = 0; i < 200000; i++)
        x += i;
    unsigned cycles = ebsp_raw_time();
    for (int i = 0; i < 3; i++)
        ebsp_barrier();
    bsp_sync();
    ebsp_host_sync();
    bsp_sync();
    ebsp_host_sync();
    float t1 = bsp_time();
    float h1 = ebsp_host_time();
    ebsp_message("pid %d/%d clocks %s %s %s", s, p,
                 (t0 >= 0 && t1 > t0) ? "bsp_time-ok" : "bsp_time-BAD",
                 (h0 >= 0 && h1 > h0) ? "host_time-ok" : "host_time-BAD",
                 cycles > 0 ? "raw-ok" : "raw-BAD");
    bsp_end();
    return 0;
}
