/* Every call of the LQCD API, with its documented results. */
#include <e_bsp.h>
#include <lqcd_msg.h>
#include <string.h>

#define CHECK(cond)                                                                                          \
    do {                                                                                                     \
        if (!(cond))                                                                                         \
            bsp_abort("line %d: %s (error %d: %s)", __LINE__, #cond, getErrorNumber(), getErrorString());     \
    } while (0)

enum { N = 64, ITER = 50 };

static double halo_in[8][N], halo_out[8][N];
static void *rx[8], *tx[8];

int main(void)
{
    bsp_begin();
    int p = bsp_nprocs(), s = bsp_pid();
    CHECK(initMachine() == 0);
    CHECK(getMachineType() == 2);
    int dims[2] = {4, 4};
    declareTopology(dims, 2, s + 1); /* wrong localHost: an error, then the right call works */
    CHECK(getErrorNumber() == LQCD_ERR_TOPOLOGY && getGridCoordinates(dims) == -1);
    dims[0] = dims[1] = 4;
    declareTopology(dims, 2, s);
    clearError();
    int xy[2];
    CHECK(getGridCoordinates(xy) == 0);
    CHECK(xy[0] == s % 4 && xy[1] == s / 4); /* the identity on the 4x4 mesh */
    CHECK(getGridHost(xy) == s);

    /* halo exchange in the 4 directions: name d receives from direction d */
    int dir[4] = {+1, -1, +2, -2};
    for (int d = 0; d < 4; d++)
        CHECK(rx[d] = declareReceive(halo_in[d], sizeof halo_in[d], 100 + d));
    for (int d = 0; d < 4; d++) /* what I send in direction dir arrives from -dir there */
        CHECK(tx[d] = declareSendRelative(halo_out[d], sizeof halo_out[d], dir[d], 100 + (d ^ 1)));
    for (int it = 0; it < ITER; it++) {
        for (int d = 0; d < 4; d++)
            startReceive(rx[d]);
        for (int d = 0; d < 4; d++) {
            for (int i = 0; i < N; i++)
                halo_out[d][i] = s * 1000 + it * 10 + d + i * 1e-3;
            startSend(tx[d]);
        }
        void *all[8];
        memcpy(all, rx, 4 * sizeof(void *));
        memcpy(all + 4, tx, 4 * sizeof(void *));
        CHECK(waitForMultiple(all, 8, 10000) == 1);
        for (int d = 0; d < 4; d++) {
            int c[2] = {xy[0], xy[1]};
            /* buffer d came from direction dir[d]: the neighbour at +dir[d] sent with -dir[d] */
            int k = (dir[d] > 0 ? 1 : -1), axis = (dir[d] > 0 ? dir[d] : -dir[d]) - 1;
            c[axis] += k;
            int from = getGridHost(c);
            for (int i = 0; i < N; i++)
                CHECK(halo_in[d][i] == from * 1000 + it * 10 + (d ^ 1) + i * 1e-3);
            CHECK(testCompletion(rx[d]) == 1 && testCompletion(tx[d]) == 1);
        }
    }

    /* a send started before its receive is armed stays pending, and the
     * receiver's startReceive completes it */
    static int token_in, token_out;
    void *r = declareReceive(&token_in, sizeof token_in, 7);
    void *t = declareSendTo(&token_out, sizeof token_out, (s + 1) % p, 7);
    CHECK(r && t);
    token_out = s;
    startSend(t);
    CHECK(testCompletion(t) == 0);
    CHECK(waitFor(t, 0) == 0 && getErrorNumber() == LQCD_ERR_TIMEOUT);
    clearError();
    waitForBarrier(); /* every send is pending: nobody armed yet */
    startReceive(r);
    CHECK(testCompletion(r) == 1 && token_in == (s + p - 1) % p);
    CHECK(waitFor(t, 10000) == 1);

    /* a send declared before the receiver declared its buffer */
    static int late_in, late_out;
    void *lt = declareSendTo(&late_out, sizeof late_out, (s + 1) % p, 8);
    CHECK(lt);
    late_out = 10 * s;
    startSend(lt);
    waitForBarrier();
    void *lr = declareReceive(&late_in, sizeof late_in, 8);
    CHECK(lr);
    startReceive(lr);
    CHECK(waitFor(lr, 10000) == 1 && late_in == 10 * ((s + p - 1) % p));
    CHECK(waitFor(lt, 10000) == 1);

    /* broadcast from core 3 */
    static double bc[4];
    void *br = declareReceive(bc, sizeof bc, 9);
    CHECK(br);
    if (s != 3)
        startReceive(br);
    waitForBarrier();
    for (int round = 0; round < 3; round++) {
        if (s == 3) {
            double v[4] = {round, round + 0.5, -1, 3};
            sendBroadcast(v, sizeof v, 9);
            CHECK(getErrorNumber() == LQCD_OK);
        } else {
            CHECK(waitFor(br, 10000) == 1);
            CHECK(bc[0] == round && bc[1] == round + 0.5 && bc[3] == 3);
            if (round < 2)
                startReceive(br);
        }
    }
    waitForBarrier();

    /* collectives */
    CHECK(globalOr(s == 5) == 1);
    CHECK(globalOr(0) == 0);
    CHECK(sumInt(s) == p * (p - 1) / 2);
    CHECK(sumInt(0x7fffffff) == (int)(0x7fffffffu * (unsigned)p)); /* wraps */
    CHECK(sumFloat(0.5f) == 0.5f * p);
    CHECK(sumDouble(s + 0.25) == p * (p - 1) / 2 + 0.25 * p);
    float fa[3] = {1, (float)s, -2};
    sumFloatArray(fa, 3);
    CHECK(fa[0] == p && fa[1] == p * (p - 1) / 2 && fa[2] == -2 * p);
    double da[40];
    for (int i = 0; i < 40; i++)
        da[i] = i * s;
    sumDoubleArray(da, 40);
    for (int i = 0; i < 40; i++)
        CHECK(da[i] == i * (p * (p - 1) / 2));
    sumDoubleArray(da, 0);
    waitForBarrier();

    startReceive(r); /* left armed: shutdownMachine counts it */
    CHECK(shutdownMachine() == 1 && getErrorNumber() == LQCD_ERR_BUSY);
    CHECK(declareReceive(&token_in, 4, 99) == NULL && getErrorNumber() == LQCD_ERR_NOT_INIT);
    if (s == 0)
        ebsp_message("all LQCD calls ok on %d cores", p);
    bsp_end();
    return 0;
}
