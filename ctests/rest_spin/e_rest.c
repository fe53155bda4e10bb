/*
 * Two cores that spin on each other while the coroutine scheduler keeps
 * them on one worker (env: EBSP_REST=1, the other worker rests): first many
 * empty supersteps, long enough for the monitor to rest the other worker,
 * then each core spins, without a library call, on a flag only the other
 * core sets. The spinning core never yields, so the other runs only if the
 * monitor sees the stuck worker and wakes the resting one (sched_coro.c,
 * "Resting workers"). Three such rounds, with supersteps between them, so
 * the worker rests again before each.
 */
#include <e_bsp.h>

volatile int flag;
int go_on; /* core 0's clock decides for both when the supersteps end */

int main(void)
{
    bsp_begin();
    int s = bsp_pid(), other = 1 - s;
    bsp_push_reg((void *)&flag, sizeof flag);
    bsp_push_reg(&go_on, sizeof go_on);
    bsp_sync();
    int supersteps = 0;
    for (int round = 1; round <= 3; round++) {
        float until = bsp_time() + 0.05f; /* several monitor windows */
        do {
            if (s == 0) {
                /* both: resting needs the time, the check below the count,
                   which a loaded machine would otherwise not reach */
                go_on = bsp_time() < until || supersteps < 100 * round;
                bsp_put(1, &go_on, &go_on, 0, sizeof go_on);
            }
            bsp_sync();
            supersteps++;
        } while (go_on);
        bsp_hpput(other, &round, (void *)&flag, 0, sizeof round);
        while (flag < round)
            ; /* no library call: a coroutine never yields here */
        bsp_sync();
    }
    ebsp_message("flag %d after supersteps: %s", flag, supersteps >= 300 ? "many" : "few");
    bsp_end();
    return 0;
}
