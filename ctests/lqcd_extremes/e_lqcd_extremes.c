/* See host_lqcd_extremes.c. Core 0 makes most calls; the others are the
 * partners they need. Lines are printed with printf, not ebsp_message,
 * which cuts them at 127 characters as the board did. */
#include <e_bsp.h>
#include <lqcd_msg.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const int ext[4] = {0, -1, INT_MIN, INT_MAX};
static const char *const extn[4] = {"0", "-1", "INT_MIN", "INT_MAX"};

static char buf[64], in[4][8];
static void *kept; /* a channel of the first run, for the second */
static int runs;

static void say(const char *what, long r, int kind)
{
    char result[32] = "";
    if (kind == 0)
        snprintf(result, sizeof result, " = %ld", r);
    else if (kind == 1)
        snprintf(result, sizeof result, " = %s", r ? "a channel" : "NULL");
    printf("$%02d: %s%s; error %d: %s\n", bsp_pid(), what, result, getErrorNumber(), getErrorString());
    clearError();
}

/* A refusal whose text depends on the width of pointers (a byte count
 * of 8 or 4 per element, or "do not fit" at 32 bits) is shown as one. */
static void say_reach(const char *what, long r)
{
    const char *e = getErrorString();
    int beyond = strstr(e, "no readable memory") || strstr(e, "no writable memory") || strstr(e, "address space");
    printf("$%02d: %s = %ld; error %d: %s\n", bsp_pid(), what, r, getErrorNumber(),
           beyond ? "(beyond the memory: refused)" : e);
    clearError();
}

/* what: the call as text, formatted with the argument's name */
#define SAY(expr, ...) say_f(0, (long)(expr), __VA_ARGS__)
#define SAYP(expr, ...) say_f(1, (expr) != NULL, __VA_ARGS__)
#define SAYV(stmt, ...)                                                                                      \
    do {                                                                                                     \
        stmt;                                                                                                \
        say_f(2, 0, __VA_ARGS__);                                                                            \
    } while (0)

__attribute__((format(printf, 3, 4))) static void say_f(int kind, long r, const char *format, ...)
{
    char what[160];
    va_list ap;
    va_start(ap, format);
    vsnprintf(what, sizeof what, format, ap);
    va_end(ap);
    say(what, r, kind);
}

static void declarations(int s)
{
    if (s == 0) {
        for (int i = 0; i < 4; i++)
            SAYP(declareReceive(buf, ext[i], 7), "declareReceive(buf, %s, 7)", extn[i]);
        for (int i = 0; i < 4; i++)
            SAYP(declareSendTo(buf, ext[i], 1, 7), "declareSendTo(buf, %s, 1, 7)", extn[i]);
        for (int i = 0; i < 4; i++)
            SAYP(declareSendTo(buf, 8, ext[i], 9), "declareSendTo(buf, 8, %s, 9)", extn[i]);
        for (int i = 0; i < 4; i++)
            SAYP(declareSendRelative(buf, 8, ext[i], 7), "declareSendRelative(buf, 8, %s, 7) before declareTopology",
                 extn[i]);
        int dims[2] = {2, 2};
        for (int i = 0; i < 4; i++)
            SAYV(declareTopology(dims, ext[i], 0), "declareTopology(dims, %s, 0)", extn[i]);
        for (int i = 0; i < 4; i++) {
            int bad[2] = {ext[i], 2};
            SAYV(declareTopology(bad, 2, 0), "declareTopology({%s, 2}, 2, 0)", extn[i]);
        }
        for (int i = 0; i < 4; i++)
            SAYV(declareTopology(dims, 2, ext[i]), "declareTopology(dims, 2, %s)", extn[i]);
    }
    waitForBarrier();
    int dims[2] = {2, 2};
    declareTopology(dims, 2, s);
    if (getErrorNumber())
        say("declareTopology(dims, 2, pid)", 0, 2);
    waitForBarrier();
    if (s == 0) {
        for (int i = 0; i < 4; i++)
            SAYP(declareSendRelative(buf, ext[i], 1, 7), "declareSendRelative(buf, %s, 1, 7)", extn[i]);
        for (int i = 0; i < 4; i++)
            SAYP(declareSendRelative(buf, 8, ext[i], 7), "declareSendRelative(buf, 8, %s, 7)", extn[i]);
        for (int i = 0; i < 4; i++)
            SAYP(declareSendRelative(buf, 8, 2, ext[i]), "declareSendRelative(buf, 8, 2, %s)", extn[i]);
        int xy[2] = {INT_MIN, INT_MAX};
        SAY(getGridHost(xy), "getGridHost({INT_MIN, INT_MAX})");
        xy[0] = INT_MAX;
        xy[1] = -1;
        SAY(getGridHost(xy), "getGridHost({INT_MAX, -1})");
    }
    waitForBarrier();
}

/* Names at the extremes work: core 0 sends one message to each of core
 * 1's buffers named 0, -1, INT_MIN, INT_MAX, which waits for them with
 * each extreme of milliseconds. */
static void names(int s)
{
    void *rx[4] = {0}, *tx[4] = {0};
    if (s == 1)
        for (int i = 0; i < 4; i++) {
            rx[i] = declareReceive(in[i], 8, ext[i]);
            startReceive(rx[i]);
        }
    waitForBarrier();
    if (s == 0) {
        for (int i = 0; i < 4; i++) {
            tx[i] = declareSendTo(buf + 8 * i, 8, 1, ext[i]);
            snprintf(buf + 8 * i, 8, "name%d", i);
            startSend(tx[i]);
        }
        for (int i = 0; i < 4; i++)
            SAY(waitForMultiple(tx, 4, ext[i]), "waitForMultiple(tx, 4, %s)", extn[i]);
        for (int i = 0; i < 3; i++)
            SAY(waitForMultiple(tx, ext[i], 0), "waitForMultiple(tx, %s, 0)", extn[i]);
        say_reach("waitForMultiple(tx, INT_MAX, 0)", waitForMultiple(tx, INT_MAX, 0));
        kept = tx[0];
    }
    waitForBarrier();
    if (s == 1)
        for (int i = 0; i < 4; i++) {
            long r = waitFor(rx[i], ext[i]);
            say_f(0, r, "waitFor(buffer %s, %s) [%s]", extn[i], extn[i], in[i]);
        }
    waitForBarrier();
}

static void broadcasts(int s)
{
    void *rx[4] = {0};
    if (s != 0)
        for (int i = 0; i < 4; i++) {
            memset(in[i], 0, 8);
            rx[i] = declareReceive(in[i], 8, 1000 + i);
            startReceive(rx[i]);
        }
    waitForBarrier();
    if (s == 0) {
        for (int i = 0; i < 4; i++)
            SAYV(sendBroadcast(buf, ext[i], 1000), "sendBroadcast(buf, %s, 1000)", extn[i]);
        for (int i = 0; i < 4; i++) {
            snprintf(buf, 8, "bc%d", i);
            SAYV(sendBroadcast(buf, 8, ext[i]), "sendBroadcast(buf, 8, %s)", extn[i]);
        }
    }
    /* the names 0, -1, INT_MIN, INT_MAX have no receive: 8 bytes to 1000 .. 1003 */
    for (int i = 0; s == 0 && i < 4; i++) {
        snprintf(buf, 8, "bc%d", i);
        sendBroadcast(buf, 8, 1000 + i);
    }
    waitForBarrier();
    if (s != 0)
        for (int i = 0; i < 4; i++) {
            long r = waitFor(rx[i], -1);
            say_f(0, r, "waitFor(broadcast to %d) [%s]", 1000 + i, in[i]);
        }
    waitForBarrier();
}

static void collectives(int s)
{
    for (int i = 0; i < 4; i++) {
        int r = globalOr(ext[i]);
        if (s == 0)
            say_f(0, r, "globalOr(%s)", extn[i]);
    }
    for (int i = 0; i < 4; i++) {
        int r = sumInt(ext[i]);
        if (s == 0)
            say_f(0, r, "sumInt(%s) on 4 cores", extn[i]);
    }
    static double x[4];
    static float f[4];
    for (int i = 0; i < 4; i++) {
        x[0] = f[0] = 1;
        char what[64];
        sumDoubleArray(x, ext[i]);
        snprintf(what, sizeof what, "sumDoubleArray(x, %s) x[0]", extn[i]);
        say_reach(what, (long)x[0]);
        sumFloatArray(f, ext[i]);
        snprintf(what, sizeof what, "sumFloatArray(f, %s) f[0]", extn[i]);
        say_reach(what, (long)f[0]);
    }
}

/* Handles that are not channels: refused, never followed. */
static void handles(int s)
{
    if (s != 0)
        return;
    int on_stack[16] = {0};
    char *garbage = malloc(256);
    memset(garbage, 0x5a, 256);
    void *rx = declareReceive(buf, 8, 5000);
    void *bad[] = {buf, (char *)rx + 8, on_stack, garbage, (void *)(uintptr_t)0xdeadbeef0ull,
                   (void *)(uintptr_t)-64, (void *)(uintptr_t)1, NULL};
    const char *what[] = {"a global", "inside a channel", "the stack", "malloc'd bytes", "unmapped",
                          "the top of memory", "1", "NULL"};
    for (int i = 0; i < (int)(sizeof bad / sizeof bad[0]); i++) {
        SAYV(startSend(bad[i]), "startSend(%s)", what[i]);
        SAYV(startReceive(bad[i]), "startReceive(%s)", what[i]);
        SAY(testCompletion(bad[i]), "testCompletion(%s)", what[i]);
        SAY(waitFor(bad[i], -1), "waitFor(%s, -1)", what[i]);
        SAY(waitForMultiple(&bad[i], 1, -1), "waitForMultiple({%s}, 1, -1)", what[i]);
    }
    free(garbage);
}

static void after_shutdown(int s)
{
    void *rx = declareReceive(in[0], 8, 6000 + s);
    void *tx = declareSendTo(buf, 8, (s + 1) % 4, 6000 + (s + 1) % 4);
    int dims[2] = {2, 2}, xy[2];
    waitForBarrier();
    SAY(shutdownMachine(), "shutdownMachine()");
    if (s == 3) {
        SAYV(startSend(tx), "startSend(tx) after shutdownMachine");
        SAYV(startReceive(rx), "startReceive(rx) after shutdownMachine");
        SAY(testCompletion(rx), "testCompletion(rx) after shutdownMachine");
        SAY(waitFor(rx, -1), "waitFor(rx, -1) after shutdownMachine");
        SAY(waitForMultiple(&rx, 1, -1), "waitForMultiple(&rx, 1, -1) after shutdownMachine");
        SAYP(declareReceive(buf, 8, 1), "declareReceive(buf, 8, 1) after shutdownMachine");
        SAYP(declareSendTo(buf, 8, 0, 1), "declareSendTo(buf, 8, 0, 1) after shutdownMachine");
        SAYP(declareSendRelative(buf, 8, 1, 1), "declareSendRelative(buf, 8, 1, 1) after shutdownMachine");
        SAYV(declareTopology(dims, 2, 3), "declareTopology(dims, 2, 3) after shutdownMachine");
        SAY(getGridCoordinates(xy), "getGridCoordinates(xy) after shutdownMachine");
        SAYV(sendBroadcast(buf, 8, 1), "sendBroadcast(buf, 8, 1) after shutdownMachine");
    }
    /* every core shut down: the collectives fail on every core alike */
    SAYV(waitForBarrier(), "waitForBarrier() after shutdownMachine");
    SAY(sumInt(1), "sumInt(1) after shutdownMachine");
}

int main(void)
{
    bsp_begin();
    int s = bsp_pid();
    initMachine();
    if (runs++ == 0) {
        declarations(s);
        names(s);
        broadcasts(s);
        collectives(s);
        handles(s);
    } else if (s == 0) {
        SAYV(startSend(kept), "startSend(a channel of the first run)");
        SAY(waitFor(kept, -1), "waitFor(a channel of the first run, -1)");
    }
    after_shutdown(s);
    bsp_end();
    return 0;
}
