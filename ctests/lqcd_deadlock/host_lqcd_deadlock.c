/* LQCD waits that no core can end are a deadlock, reported like a
 * deadlock of barriers: where each core is, then each LQCD wait and what
 * it misses; the run stops and ebsp_spmd returns 0. Each run of the
 * kernel is one scenario (the kernel counts its runs); the last is no
 * deadlock (a wait with a limit, waits that end after long computations, and a thousand
 * exchanges right after a bsp_sync, where cores released from the barrier
 * have not run yet when the first waits), and must not be reported. */
#include <host_bsp.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (!bsp_init("e_lqcd_deadlock.elf", argc, argv) || !bsp_begin(4))
        return 1;
    for (int i = 0; i < 6; i++) {
        fflush(stdout);
        int r = ebsp_spmd();
        fflush(stdout);
        printf("scenario %d: ebsp_spmd = %d\n", i, r);
    }
    bsp_end();
    return 0;
}
