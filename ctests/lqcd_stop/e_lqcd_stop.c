/* bsp_abort on core 0 while the other cores wait without a time limit: in
 * waitFor (cores 1, 2) and in an LQCD collective (core 3). The next run
 * works. The host tells the kernel which run it is through local memory
 * offset 0: a core the abort stopped before it started its kernel (a busy
 * machine) would miss a count of its own. */
#define _GNU_SOURCE
#include <e_bsp.h>
#include <lqcd_msg.h>
#include <time.h>

int main(void)
{
    bsp_begin();
    int s = bsp_pid(), p = bsp_nprocs();
    initMachine();
    static int in, out;
    void *r = declareReceive(&in, sizeof in, 1);
    void *t = declareSendTo(&out, sizeof out, (s + 1) % p, 1);
    int run = *(int *)ebsp_local_address(0);
    if (run == 1) {
        if (s == 0) {
            struct timespec ts = {0, 50 * 1000000};
            nanosleep(&ts, NULL);
            bsp_abort("core 0 stops the run");
        } else if (s == 3) {
            sumDouble(1.0);
        } else {
            startReceive(r);
            waitFor(r, -1);
        }
        ebsp_message("not reached");
    }
    out = s;
    startReceive(r);
    startSend(t);
    if (waitFor(r, 10000) == 1 && waitFor(t, 10000) == 1 && in == (s + p - 1) % p)
        ebsp_message("run %d: received from core %d", run, in);
    bsp_end();
    return 0;
}
