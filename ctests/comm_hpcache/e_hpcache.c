#include <e_bsp.h>

static int run;
long long x[2];

int main(void)
{
    bsp_begin();
    int s = bsp_pid(), p = bsp_nprocs();
    run++;
    if (run == 2) {
        /* x was registered in run 1; not in this one. (The sync first: a
         * stopped run may stop a core before it counted this run.) */
        bsp_sync();
        if (s == 1)
            bsp_hpput(0, &x[0], x, 0, 8);
        bsp_sync();
        bsp_end();
        return 0;
    }
    bsp_push_reg(x, sizeof x);
    bsp_sync();
    long long mine = 100 * run + s, got = 0;
    bsp_hpput((s + 1) % p, &mine, x, 8, 8);
    ebsp_barrier();
    bsp_hpget((s + p - 1) % p, x, 8, &got, 8);
    bsp_sync();
    ebsp_message("run %d: x[1] = %lld, got %lld", run, x[1], got);
    /* the same address registered again, smaller: only 8 bytes now */
    bsp_pop_reg(x);
    bsp_push_reg(x, 8);
    bsp_sync();
    bsp_hpput((s + 1) % p, &mine, x, 0, 8);
    if (run == 1 && s == 2)
        bsp_hpput((s + 1) % p, &mine, x, 8, 8); /* was fine a superstep ago */
    bsp_sync();
    bsp_end();
    return 0;
}
