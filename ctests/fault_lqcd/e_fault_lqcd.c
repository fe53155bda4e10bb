/* LQCD calls handed memory or handles the library cannot use: LQCD_ERR_ARG
 * (or LQCD_ERR_CHANNEL) and nothing else, as the LQCD calls report their
 * misuse. The engine reads a copy of declareTopology's array, made in C;
 * the buffers of the declarations are checked when declared, as the data
 * moves later, where a fault would be a crash inside the library. */
#include <e_bsp.h>
#include <lqcd_msg.h>
#include <stdio.h>

static void show(const char *what)
{
    printf("$%02d: %s: error %d: %s\n", bsp_pid(), what, getErrorNumber(), getErrorString());
    clearError();
}

int main(void)
{
    bsp_begin();
    initMachine();
    int dims[1] = {bsp_nprocs()};
    char *volatile bad = (char *)0x10; /* volatile: gcc warns of a constant one */
    if (bsp_pid() == 0) {
        declareTopology((int *)bad, 1, 0);
        show("declareTopology");
        declareReceive(bad, 8, 1);
        show("declareReceive");
        declareSendTo(bad, 8, 1, 1);
        show("declareSendTo");
        sendBroadcast(bad, 8, 1);
        show("sendBroadcast");
        startSend(bad);
        show("startSend");
        startReceive(bad);
        show("startReceive");
        printf("$00: testCompletion: %d\n", testCompletion(bad));
        show("testCompletion");
        printf("$00: waitFor: %d\n", waitFor(bad, 10));
        show("waitFor");
    }
    declareTopology(dims, 1, bsp_pid());
    ebsp_message("topology: error %d", getErrorNumber());
    if (bsp_pid() == 0) {
        int c[1];
        printf("$00: getGridCoordinates: %d\n", getGridCoordinates((int *)bad));
        show("getGridCoordinates");
        printf("$00: getGridHost: %d\n", getGridHost((int *)bad));
        show("getGridHost");
        printf("$00: getGridCoordinates of a good array: %d\n", getGridCoordinates(c));
    }
    sumDoubleArray((double *)bad, 2); /* every core, so none waits for the others */
    show("sumDoubleArray");
    double d[2] = {1, 2};
    sumDoubleArray(d, 2);
    ebsp_message("sumDoubleArray: %g %g, error %d", d[0], d[1], getErrorNumber());
    shutdownMachine();
    bsp_end();
    return 0;
}
