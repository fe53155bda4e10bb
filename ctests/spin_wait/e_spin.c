/*
 * Cores that spin on memory another core writes, as Epiphany programs do
 * (`while (*flag == 0);` on a variable written with bsp_hpput): a relay in
 * which core s waits for core s+1 before it wakes core s-1, so every core
 * but the last spins while the one it waits for must still get a CPU (the
 * coroutine scheduler starts cores in pid order: the first workers all
 * pick spinning cores). Under the
 * coroutine scheduler no spinning core ever yields; the scheduler's monitor
 * has to start workers (sched/sched_coro.c). Then many supersteps, so the
 * cores move between workers, each calling into the engine (bsp_qsize,
 * a Go call) after every move.
 */
#include <e_bsp.h>

volatile int flag;
int token;

int main(void)
{
    bsp_begin();
    int s = bsp_pid(), p = bsp_nprocs();
    bsp_push_reg((void *)&flag, sizeof flag);
    bsp_push_reg(&token, sizeof token);
    bsp_sync();
    for (int round = 1; round <= 3; round++) {
        if (s + 1 < p)
            while (flag < round)
                ; /* no library call: a coroutine never yields here */
        token += round;
        int next = round;
        if (s > 0)
            bsp_hpput(s - 1, &next, (void *)&flag, 0, sizeof next);
        bsp_sync();
    }
    int calls = 0;
    for (int i = 0; i < 200; i++) {
        bsp_sync();
        int packets, bytes;
        bsp_qsize(&packets, &bytes);
        calls += packets == 0;
    }
    ebsp_message("flag %d token %d calls %d", flag, token, calls);
    bsp_end();
    return 0;
}
