/*
 * The LQCD message API inside a BSPlib section: persistent channels
 * (declared once, started many times) between every pair of ring
 * neighbours, a large message, sends started before their receives were
 * armed or declared, and the collectives, whose sums must have the same bits in
 * every layout of the cores (one process, or MPI ranks): pid 0 prints them
 * in hex. Every check prints one line "name: ok" from pid 0, counted over
 * all cores.
 */
#include <bsp.h>
#include <lqcd_msg.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ITER = 40, HALO = 64, BIG = 1 << 18 };

static int bad; /* this core's failed checks since the last report */

static void expect(int ok)
{
    bad += !ok;
}

/* One line from pid 0: ok when no core failed a check since the last. */
static void report(const char *name)
{
    int failed = sumInt(bad);
    if (bsp_pid() == 0)
        printf("%s: %s\n", name, failed ? "FAILED" : "ok");
    bad = 0;
}

static uint64_t bits(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

/* A value whose sum over the cores depends on the order of the additions. */
static double value(int pid, int i)
{
    double scale = (pid + i) % 3 == 0 ? 1e16 : 1.0;
    double sign = (pid * 7 + i) % 5 < 2 ? -1.0 : 1.0;
    return sign * scale * (1.0 + (pid * 31 + i * 17) % 97 / 13.0);
}

static void halo(int p, int s)
{
    double out[2][HALO], in[2][HALO];
    void *recv[2], *send[2];
    for (int d = 0; d < 2; d++) {
        recv[d] = declareReceive(in[d], sizeof in[d], 10 + d);
        send[d] = declareSendRelative(out[d], sizeof out[d], d ? -1 : +1, 10 + d);
        expect(recv[d] && send[d]);
    }
    waitForBarrier(); /* every receive is declared */
    int coords[1];
    getGridCoordinates(coords);
    int left[1] = {coords[0] - 1}, right[1] = {coords[0] + 1};
    int from[2] = {getGridHost(left), getGridHost(right)}; /* buffer 10 comes from the left */
    for (int it = 0; it < ITER; it++) {
        for (int d = 0; d < 2; d++) {
            for (int k = 0; k < HALO; k++)
                out[d][k] = s * 1000.0 + it + k / 100.0 + d * 0.5;
            startReceive(recv[d]);
        }
        for (int d = 0; d < 2; d++)
            startSend(send[d]);
        if (it % 2) {
            void *all[4] = {recv[0], recv[1], send[0], send[1]};
            expect(waitForMultiple(all, 4, -1) == 1);
        } else { /* progress by testing only, no superstep */
            for (int d = 0; d < 2; d++) {
                while (testCompletion(recv[d]) == 0)
                    ;
                while (testCompletion(send[d]) == 0)
                    ;
            }
        }
        for (int d = 0; d < 2; d++)
            for (int k = 0; k < HALO; k++)
                expect(in[d][k] == from[d] * 1000.0 + it + k / 100.0 + d * 0.5);
    }
    (void)p;
}

/* Bytes that differ by sender, message and place. */
static void fill(char *buf, int n, int sender, int k)
{
    for (int i = 0; i < n; i++)
        buf[i] = (char)(sender * 131 + k * 31 + i * 7 + i / 251);
}

static int filled(const char *buf, int n, int sender, int k)
{
    for (int i = 0; i < n; i++)
        if (buf[i] != (char)(sender * 131 + k * 31 + i * 7 + i / 251))
            return 0;
    return 1;
}

static void big(int p, int s)
{
    char *out = malloc(BIG), *in = malloc(BIG);
    void *r = declareReceive(in, BIG, 20);
    void *w = declareSendTo(out, BIG, (s + 1) % p, 20);
    expect(r && w);
    int from = (s + p - 1) % p;
    for (int it = 0; it < 3; it++) {
        fill(out, BIG, s, it);
        startReceive(r);
        startSend(w);
        expect(waitFor(r, -1) == 1 && waitFor(w, -1) == 1);
        expect(filled(in, BIG, from, it));
    }
    free(out);
    free(in);
}

/* Large sends (across ranks their bytes travel apart from their heads)
 * started before their receives were armed, one of them before its
 * receive was declared, in another order than the receives': each lands
 * whole in its own buffer. */
static void large_queued(int p, int s)
{
    /* D: the largest buffer that travels with its header (under mpirun) */
    enum { A = 12 * 1024, B = 40 * 1024, D = 8 * 1024 - 1 };
    int to = (s + 1) % p, from = (s + p - 1) % p;
    char *oa = malloc(A), *ob = malloc(B), *oc = malloc(B), *ia = malloc(A), *ib = malloc(B), *ic = malloc(B);
    char *od = malloc(D), *id = malloc(D);
    fill(oa, A, s, 1);
    fill(ob, B, s, 2);
    fill(oc, B, s, 3);
    fill(od, D, s, 4);
    void *ra = declareReceive(ia, A, 60), *rb = declareReceive(ib, B, 61), *rd = declareReceive(id, D, 63);
    void *wa = declareSendTo(oa, A, to, 60), *wb = declareSendTo(ob, B, to, 61), *wc = declareSendTo(oc, B, to, 62);
    void *wd = declareSendTo(od, D, to, 63);
    expect(ra && rb && rd && wa && wb && wc && wd);
    waitForBarrier();
    startSend(wc);
    startSend(wd);
    startSend(wb);
    startSend(wa);
    waitForBarrier(); /* the sends arrive, or wait in their receiver's process */
    void *rc = declareReceive(ic, B, 62);
    startReceive(ra);
    startReceive(rc);
    startReceive(rd);
    startReceive(rb);
    expect(waitFor(ra, -1) == 1 && waitFor(rb, -1) == 1 && waitFor(rc, -1) == 1 && waitFor(rd, -1) == 1);
    expect(waitFor(wa, -1) == 1 && waitFor(wb, -1) == 1 && waitFor(wc, -1) == 1 && waitFor(wd, -1) == 1);
    expect(filled(ia, A, from, 1) && filled(ib, B, from, 2) && filled(ic, B, from, 3) && filled(id, D, from, 4));
    free(od);
    free(id);
    free(oa);
    free(ob);
    free(oc);
    free(ia);
    free(ib);
    free(ic);
}

/* A send declared and started before its receive exists. */
static void early(int p, int s)
{
    int out = 500 + s, in = -1;
    int to = (s + 3) % p, from = (s + p - 3) % p;
    void *w = declareSendTo(&out, sizeof out, to, 30);
    startSend(w);
    /* pending in one process; across ranks complete once MPI has the bytes */
    int t = testCompletion(w);
    expect(t == 0 || t == 1);
    bsp_sync(); /* a superstep between: the send stays pending */
    void *r = declareReceive(&in, sizeof in, 30);
    startReceive(r);
    expect(waitFor(r, -1) == 1 && in == 500 + from);
    expect(waitFor(w, -1) == 1);
}

/* SMALL_RUNS small messages of every core through one channel to the
 * core half the machine away (another rank under mpirun), each started
 * once the last is complete, and on two sizes of buffer (8 bytes and
 * 1 KiB) at once: across ranks they are packed per rank with every
 * other core's, and must land in the order they were started. */
static void small_in_order(int p, int s)
{
    enum { SMALL_RUNS = 50, WORDS = 128 };
    int to = (s + p / 2) % p, from = (s + p - p / 2) % p;
    int64_t out = 0, in = -1, wide_out[WORDS], wide_in[WORDS];
    void *r = declareReceive(&in, sizeof in, 70), *rw = declareReceive(wide_in, sizeof wide_in, 71);
    void *w = declareSendTo(&out, sizeof out, to, 70), *ww = declareSendTo(wide_out, sizeof wide_out, to, 71);
    expect(r && rw && w && ww);
    waitForBarrier();
    for (int k = 0; k < SMALL_RUNS; k++) {
        out = (int64_t)s * 1000 + k;
        for (int j = 0; j < WORDS; j++)
            wide_out[j] = (int64_t)s * 100000 + k * WORDS + j;
        startReceive(r);
        startReceive(rw);
        startSend(w);
        startSend(ww);
        void *all[4] = {w, ww, r, rw};
        expect(waitForMultiple(all, 4, -1) == 1);
        expect(in == (int64_t)from * 1000 + k);
        for (int j = 0; j < WORDS; j++)
            expect(wide_in[j] == (int64_t)from * 100000 + k * WORDS + j);
    }
    waitForBarrier();
}

/* A receive armed before bsp_sync; its sender waits for the send to
 * complete before it syncs: the receiving core's process must take the
 * bytes in while its cores wait in the barrier. */
static void armed_then_sync(int p, int s)
{
    int out = 700 + s, in = -1;
    int to = (s + 1) % p, from = (s + p - 1) % p; /* an odd core sends to an even one, which syncs */
    void *r = declareReceive(&in, sizeof in, 50);
    startReceive(r);
    waitForBarrier();
    void *w = declareSendTo(&out, sizeof out, to, 50);
    if (s % 2) {
        startSend(w);
        expect(waitFor(w, -1) == 1);
    }
    bsp_sync();
    if (s % 2 == 0) {
        startSend(w);
        expect(waitFor(w, -1) == 1);
    }
    expect(waitFor(r, -1) == 1 && in == 700 + from);
}

/* BSPlib messages (from every core, so across ranks too) read by pointer
 * after LQCD barriers within the superstep: their bytes stay where
 * bsp_hpmove showed them until the next sync. */
static void messages_through_barriers(int p, int s)
{
    enum { PER = 6, ITERS = 3 };
    bsp_size_t ts = sizeof(int);
    bsp_set_tagsize(&ts);
    bsp_sync();
    void **tags = malloc((size_t)p * PER * sizeof *tags), **pays = malloc((size_t)p * PER * sizeof *pays);
    int *sizes = malloc((size_t)p * PER * sizeof *sizes), *seen = malloc((size_t)p * sizeof *seen);
    for (int it = 0; it < ITERS; it++) {
        for (int q = 0; q < p; q++)
            for (int k = 0; k < PER; k++) {
                int tag = it * 10000 + s, pay[4];
                for (int j = 0; j < 4; j++)
                    pay[j] = it * 1000000 + s * 100 + k * 4 + j;
                bsp_send(q, &tag, pay, (int)((k % 4 + 1) * sizeof(int)));
            }
        bsp_sync();
        bsp_nprocs_t n = 0;
        bsp_size_t bytes = 0;
        bsp_qsize(&n, &bytes);
        expect(n == (bsp_nprocs_t)(p * PER));
        for (bsp_nprocs_t i = 0; i < n && i < (bsp_nprocs_t)(p * PER); i++)
            sizes[i] = (int)bsp_hpmove(&tags[i], &pays[i]);
        waitForBarrier();
        waitForBarrier();
        memset(seen, 0, (size_t)p * sizeof *seen);
        for (bsp_nprocs_t i = 0; i < n && i < (bsp_nprocs_t)(p * PER); i++) {
            int tag, v;
            memcpy(&tag, tags[i], sizeof tag);
            int src = tag % 10000, k = src >= 0 && src < p ? seen[src]++ : 0;
            expect(tag / 10000 == it && src >= 0 && src < p && sizes[i] == (int)((k % 4 + 1) * sizeof(int)));
            for (int j = 0; j < sizes[i] / (int)sizeof(int); j++) {
                memcpy(&v, (char *)pays[i] + j * sizeof v, sizeof v);
                expect(v == it * 1000000 + src * 100 + k * 4 + j);
            }
        }
    }
    free(tags);
    free(pays);
    free(sizes);
    free(seen);
}

static void collectives(int p, int s)
{
    double d = sumDouble(value(s, 0));
    float f = sumFloat((float)value(s, 1));
    int i = sumInt(0x7fff0000 + s);
    int any = globalOr(s == p - 1), none = globalOr(0);
    enum { N = 1000 };
    double *x = malloc(N * sizeof *x);
    float *y = malloc(N * sizeof *y);
    for (int k = 0; k < N; k++) {
        x[k] = value(s, k);
        y[k] = (float)value(s, k + 1);
    }
    sumDoubleArray(x, N);
    sumFloatArray(y, N);
    uint64_t hash = 0;
    for (int k = 0; k < N; k++) {
        float yk = y[k];
        uint32_t u;
        memcpy(&u, &yk, sizeof u);
        hash = hash * 1000003u ^ bits(x[k]) ^ u;
    }
    /* every core has pid 0's bits */
    uint64_t mine[5] = {bits(d), bits(f), (uint64_t)(uint32_t)i, (uint64_t)(any * 2 + none), hash}, theirs[5];
    void *r = declareReceive(theirs, sizeof theirs, 40);
    if (s != 0)
        startReceive(r);
    waitForBarrier();
    if (s == 0)
        sendBroadcast(mine, sizeof mine, 40);
    if (s != 0) {
        expect(waitFor(r, -1) == 1);
        expect(memcmp(mine, theirs, sizeof mine) == 0);
    }
    report("collectives: the same bits on every core");
    if (s == 0) {
        printf("sumDouble %a (%016llx)\n", d, (unsigned long long)bits(d));
        printf("sumFloat %a\n", (double)f);
        printf("sumInt %d\n", i);
        printf("globalOr %d %d\n", any, none);
        printf("sumDoubleArray x[0] %a x[%d] %a\n", x[0], N - 1, x[N - 1]);
        printf("sumFloatArray y[0] %a\n", (double)y[0]);
        printf("arrays hash %016llx\n", (unsigned long long)hash);
    }
    free(x);
    free(y);
}

static void spmd(void)
{
    bsp_begin(bsp_nprocs());
    int p = (int)bsp_nprocs(), s = (int)bsp_pid();
    expect(initMachine() == 0);
    int dims[1] = {p};
    declareTopology(dims, 1, s);
    expect(getErrorNumber() == LQCD_OK);
    report("init");
    /* refused on every rank, before any MPI call: directions beyond the
       grid (INT_MIN has no opposite) and a handle no declaration returned */
    static char probe[8];
    const int dirs[4] = {0, 2, INT_MIN, INT_MAX};
    for (int i = 0; i < 4; i++) {
        clearError();
        expect(declareSendRelative(probe, sizeof probe, dirs[i], 1) == NULL && getErrorNumber() == LQCD_ERR_DIRECTION);
    }
    clearError();
    expect(waitFor(probe, -1) == -1 && getErrorNumber() == LQCD_ERR_CHANNEL);
    clearError();
    report("directions 0, 2, INT_MIN, INT_MAX and a wild handle refused");
    halo(p, s);
    report("halo: persistent channels to both neighbours, started 40 times");
    big(p, s);
    report("a 256 KiB message, 3 times");
    early(p, s);
    report("a send started before its receive was declared");
    large_queued(p, s);
    report("large sends started before their receives, one before its declaration");
    small_in_order(p, s);
    report("small messages of every core, 8 bytes and 1 KiB, 50 times each in order");
    armed_then_sync(p, s);
    report("a receive armed before a sync, its send waited for before the sync");
    messages_through_barriers(p, s);
    report("BSPlib messages read by pointer after LQCD barriers");
    collectives(p, s);
    bsp_sync();
    expect(shutdownMachine() == 0);
    if (s == 0)
        printf("shutdown: %s\n", bad ? "FAILED" : "ok");
    bsp_end();
}

int main(int argc, char **argv)
{
    bsp_init(spmd, argc, argv);
    spmd();
    return 0;
}
