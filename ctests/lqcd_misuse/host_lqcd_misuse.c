/* Every misuse of the LQCD API, named by getErrorNumber/getErrorString.
 * The kernel is a registered C function (its globals are shared by the
 * cores, so a core can hand another its channel), on a 2x2 mesh. */
#include <host_bsp.h>
#include <lqcd_msg.h>
#include <stdio.h>

/* core-side calls (e_bsp.h cannot be included beside host_bsp.h) */
int bsp_pid(void);
void ebsp_message(const char *format, ...);
void ebsp_barrier(void);

/* Lines are printed with printf, not ebsp_message, which cuts them at 127
 * characters as the board did. */
#define SAY(expr) report(#expr, (long)(expr), 0)
#define SAYP(expr) report(#expr, (expr) != NULL, 1)
#define SAYV(stmt)                                                                                           \
    do {                                                                                                     \
        stmt;                                                                                                \
        report(#stmt, 0, 2);                                                                                 \
    } while (0)

static void report(const char *what, long r, int kind)
{
    char result[32] = "";
    if (kind == 0)
        snprintf(result, sizeof result, " = %ld", r);
    else if (kind == 1)
        snprintf(result, sizeof result, " = %s", r ? "a channel" : "NULL");
    printf("$%02d: %s%s; error %d: %s\n", bsp_pid(), what, result, getErrorNumber(), getErrorString());
    clearError();
}

static void *chan_of_core[4];
static char buf[4][64], buf2[4][64];

static int misuse(void)
{
    bsp_begin(0);
    int s = bsp_pid();
    char *b = buf[s], *b2 = buf2[s];
    if (s == 0)
        SAYP(declareReceive(b, 8, 1));
    initMachine();
    waitForBarrier();
    if (s == 0) {
        SAYP(declareReceive(NULL, 8, 1));
        SAYP(declareReceive(b, -1, 1));
        SAYP(declareReceive(b, 8, 1));
        SAYP(declareReceive(b, 8, 1));
        SAYP(declareSendTo(b, 8, 4, 1));
        SAYP(declareSendTo(b, 8, -1, 1));
        SAYP(declareSendRelative(b, 8, 1, 1));
        int bad[2] = {4, 2}, dims[2] = {2, 2};
        SAYV(declareTopology(dims, 2, 3));
        SAYV(declareTopology(bad, 2, 0));
        SAYV(declareTopology(dims, 0, 0));
        SAYV(declareTopology(dims, 2, 0));
    }
    waitForBarrier();
    if (s == 1) {
        int other[2] = {4, 1};
        SAYV(declareTopology(other, 2, 1));
    }
    int dims[2] = {2, 2};
    declareTopology(dims, 2, s);
    waitForBarrier();
    if (s == 0) {
        SAYP(declareSendRelative(b, 8, 0, 1));
        SAYP(declareSendRelative(b, 8, 3, 1));
        SAYP(declareSendRelative(b, 8, -3, 1));
        SAYP(declareSendRelative(b, 8, -2, 1));
    }
    /* sizes: receiver first, then sender first */
    if (s == 1)
        declareReceive(b, 8, 2);
    waitForBarrier();
    void *orphan = NULL;
    if (s == 0) {
        SAYP(declareSendTo(b, 16, 1, 2));
        SAYP(orphan = declareSendTo(b, 16, 2, 3));
        SAYV(startSend(orphan));
    }
    waitForBarrier();
    if (s == 2)
        SAYP(declareReceive(b, 8, 3));
    waitForBarrier();
    if (s == 0) {
        SAYV(startSend(orphan));
        SAY(waitFor(orphan, 100));
    }
    /* busy channels */
    void *rx = NULL, *tx = NULL;
    if (s == 1)
        chan_of_core[1] = rx = declareReceive(b2, 8, 4);
    waitForBarrier();
    if (s == 0) {
        tx = declareSendTo(b2, 8, 1, 4);
        SAYV(startSend(tx));
        SAY(testCompletion(tx));
        SAYV(startSend(tx));
    }
    waitForBarrier();
    if (s == 1) {
        SAYV(startReceive(rx));
        SAY(testCompletion(rx));
        SAYV(startReceive(rx));
        SAYV(startReceive(rx));
    }
    waitForBarrier();
    if (s == 0) {
        SAY(testCompletion(tx));
        SAYV(startSend(NULL));
        void *r = chan_of_core[2] = declareReceive(b2, 8, 5);
        SAYV(startSend(r));
        SAYV(startReceive(tx));
        SAY(waitFor(chan_of_core[1], 0));
        SAY(testCompletion(r));
        SAY(waitFor(declareSendTo(b2, 8, 2, 6), 0));
        SAY(waitForMultiple(NULL, 2, 0));
        void *two[2] = {tx, r};
        SAY(waitForMultiple(two, -1, 0));
        startReceive(r);
        SAY(waitFor(r, 30));
    }
    waitForBarrier();
    if (s == 3)
        declareSendTo(b2, 8, 0, 5);
    waitForBarrier();
    if (s == 0) {
        SAY(waitFor(chan_of_core[2], 20));
        SAY(waitFor(declareReceive(b, 0, 77), 0));
        void *o = declareSendTo(b2, 8, 3, 99);
        startSend(o);
        SAY(waitFor(o, 20));
        chan_of_core[0] = o;
    }
    waitForBarrier();
    if (s == 0) {
        SAYV(clearError());
    }
    if (s == 3) {
        SAY(shutdownMachine());
        SAY(shutdownMachine());
        SAYP(declareReceive(b, 8, 100));
    }
    ebsp_barrier();
    if (s == 0) {
        SAY(waitFor(chan_of_core[0], -1));
        SAYP(declareSendTo(b, 8, 3, 100));
    }
    bsp_end();
    return 0;
}

int main(int argc, char **argv)
{
    int r = initMachine();
    printf("host: initMachine = %d; error %d: %s\n", r, getErrorNumber(), getErrorString());
    if (!ebsp_register_kernel("misuse", misuse) || !bsp_init("misuse", argc, argv) || !bsp_begin(bsp_nprocs()))
        return 1;
    fflush(stdout);
    printf("spmd: %d\n", ebsp_spmd());
    bsp_end();
    return 0;
}
