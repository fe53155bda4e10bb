/* See host_lqcd_deadlock.c. */
#include <e_bsp.h>
#include <lqcd_msg.h>
#include <stdio.h>
#include <time.h>

static int runs;
static int in[4], out[4];

/* Computes for about ms milliseconds without calling the library. */
static void compute(int ms)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do
        clock_gettime(CLOCK_MONOTONIC, &t);
    while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
}

int main(void)
{
    bsp_begin();
    int s = bsp_pid(), p = bsp_nprocs(), next = (s + 1) % p;
    int scenario = runs++;
    initMachine();
    void *rx = declareReceive(&in[0], sizeof in[0], 1);
    void *tx = declareSendTo(&out[0], sizeof out[0], next, 1);
    waitForBarrier();
    switch (scenario) {
    case 0: /* every core waits without limit for a receive nobody starts a send to */
        startReceive(rx);
        waitFor(rx, -1);
        break;
    case 1: /* core 0 waits for core 3's send, the others are in bsp_sync */
        if (s == 0) {
            startReceive(rx);
            waitFor(rx, -1);
        } else {
            bsp_sync();
        }
        break;
    case 2: /* every core's send waits for a receive that is never armed, core 2 after a long computation */
        if (s == 2)
            compute(50);
        startSend(tx);
        waitFor(tx, -1);
        break;
    case 3: { /* waitForMultiple, and core 3 in a collective */
        void *both[2] = {tx, rx};
        if (s == 3) {
            waitForBarrier();
        } else {
            startReceive(rx);
            if (s != 1)
                startSend(tx);
            waitForMultiple(both, 2, -1);
        }
        break;
    }
    case 4: /* core 1 waits in ebsp_barrier after its send; core 2, whose receive got it, too; core 0 and 3 wait */
        startReceive(rx);
        if (s == 1)
            startSend(tx);
        if (s == 1 || s == 2) {
            if (s == 2)
                waitFor(rx, -1);
            ebsp_barrier();
        } else {
            waitFor(rx, -1);
        }
        break;
    default: /* no deadlock */
        startReceive(rx);
        if (s == 0) { /* a wait with a limit ends by itself, while the others wait in a collective */
            int r = waitFor(rx, 30);
            ebsp_message("waitFor(rx, 30) = %d, error %d", r, getErrorNumber());
        }
        waitForBarrier();
        if (s == 0)
            compute(100); /* the others wait, asleep, meanwhile */
        out[0] = s;
        startSend(tx);
        if (waitFor(rx, -1) != 1 || waitFor(tx, -1) != 1 || in[0] != (s + p - 1) % p)
            bsp_abort("core %d: the ring failed: %s", s, getErrorString());
        for (int i = 0; i < 1000; i++) {
            startReceive(rx);
            bsp_sync();
            out[0] = i + s;
            startSend(tx);
            if (waitFor(rx, -1) != 1 || waitFor(tx, -1) != 1 || in[0] != i + (s + p - 1) % p)
                bsp_abort("core %d, exchange %d: %s", s, i, getErrorString());
        }
        ebsp_message("no deadlock");
    }
    bsp_end();
    return 0;
}
