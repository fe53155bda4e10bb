/*
 * bsp_micro.c -- the micro-benchmark of ../shared/bench (e_micro.c and
 * host_micro.c) as one BSPlib program: the same measurements by the same
 * method, written against include/bsp.h, so the two faces of libebsp can be
 * compared in one run (see run.sh). pid 0 picks the iteration counts and
 * its clock (bsp_time, a double here) is the one that counts; pid 0 prints
 * the RESULT lines with the metric names of host_micro.c.
 *     bspcc -O2 bsp_micro.c -o bsp_micro
 *     ./bsp_micro P [seconds_per_test=0.5] [block_KiB_per_core=1024] [tests=all]
 * tests: a comma-separated subset of sync,words,blocks,send (run.sh's
 * requirement lines time one test per launch); the RESULT lines of the
 * others are left out.
 * Every delivered byte is verified after each test; failures call bsp_abort.
 */
#include <bsp.h>
#ifdef BSP_MICRO_BSPLIB1998 /* a BSPlib of 1998's types, e.g. BSPonMPI (../bsponmpi.sh) */
typedef bsp_size_t bsp_nprocs_t;
#endif
#ifdef BSP_MICRO_MCBSP /* MulticoreBSP for C: bsp_begin(P) only up to its thread count */
#include <mcbsp-affinity.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The results, as micro_msg.h of ../shared/bench defines them. */
#define MICRO_MAGIC      0x4d435231      /* "MCR1" */
#define MICRO_NH         7               /* h values of the 8-byte tests */
#define MICRO_NBLK       4               /* block modes: put hpput get hpget */

typedef struct {
    int magic;
    int pid, nprocs;
    int status;          /* 1: every check of this core passed */
    int clock_fallbacks; /* unused here: bsp_time is a double */
    int blk_bytes;       /* bytes per (source, destination) block */
    int nmsg;            /* messages per core per superstep (send test) */
    int hs[MICRO_NH];    /* h values of the 8-byte tests */
    double sync_s;                /* seconds per empty bsp_sync */
    double put8_T[MICRO_NH];      /* seconds per superstep, h bsp_puts  */
    double hpput8_T[MICRO_NH];    /* seconds per superstep, h bsp_hpputs */
    double blk_T[MICRO_NBLK];     /* seconds per block superstep */
    double send_T;                /* seconds per send superstep */
    double put_call_med_s;        /* one bsp_put call: median over loops */
    double put_call_mean_s;       /* one bsp_put call: mean over loops */
    double run_s;                 /* bsp_time() when the core finished */
} micro_result;

#define H_MAX    16384      /* largest h of the 8-byte tests            */
#define H_CALL   H_MAX      /* bsp_puts per timed loop (put-call test)   */
#define NMSG     8192       /* messages per core per superstep           */
#define MSGLEN   16         /* payload bytes per message                 */
#define CALIB_S  0.02       /* calibration runs until a batch lasts this */

enum { B_PUT, B_HPPUT, B_GET, B_HPGET };

typedef struct ctx {
    int s, P;
    double target;          /* seconds per measurement */
    int blk_total;
    int bcast;              /* registered: pid 0 broadcasts decisions */
    double *w_src, *w_dst;  /* 8-byte word tests */
    int w_slot;             /* words reserved per source pid in w_dst */
    char *b_src, *b_dst;    /* block tests */
    int b_blk;
    long msg_expect;        /* messages each superstep brings me */
    long msg_srcsum_expect; /* sum of their source pids */
    unsigned char *seen;    /* send test: one bit per (source, index) */
    micro_result r;
} ctx;

typedef void (*step_fn)(ctx *c, int arg);

static void fail(ctx *c, const char *what, long detail) {
    c->r.status = 0;
    bsp_abort("bsp_micro: %s failed on pid %d (detail %ld)\n", what, c->s, detail);
}

/* ------------------------------------------------------------- clocks */
/* bsp_time() is a double of seconds since bsp_begin (monotonic clock). */
typedef struct { double t; } stamp;

static stamp now(void) {
    stamp x;
    x.t = bsp_time();
    return x;
}

static double since(ctx *c, stamp a, int count) {
    (void)c; (void)count;
    double dt = bsp_time() - a.t;
    return dt > 0 ? dt : 0;
}

/* --------------------------------------------------------- agreement */
/* pid 0 proposes v, everybody returns it: costs one superstep. */
static int bcast_int(ctx *c, int v) {
    if (c->s == 0)
        for (int q = 0; q < c->P; ++q)
            bsp_put(q, &v, &c->bcast, 0, sizeof(int));
    bsp_sync();
    return c->bcast;
}

/* Runs batches of step(arg), 1, 4, 16, ... steps, until pid 0 saw a batch
   last CALIB_S (or hi steps); then all agree on n steps ~ target seconds. */
static int calibrate(ctx *c, step_fn step, int arg, int lo, int hi) {
    int n = 1;
    for (;;) {
        stamp a = now();
        for (int i = 0; i < n; ++i) step(c, arg);
        double dt = since(c, a, 0);
        int decision = -1;
        if (c->s == 0 && (dt >= CALIB_S || n >= hi)) {
            double want = dt > 0 ? c->target * n / dt : hi;
            decision = want < lo ? lo : (want > hi ? hi : (int)want);
        }
        int got = bcast_int(c, decision);
        if (got > 0) return got;
        n = n > hi / 4 ? hi : n * 4;
    }
}

/* Seconds per step on pid 0, over about target seconds. */
static double measure(ctx *c, step_fn step, int arg, int lo, int hi) {
    int n = calibrate(c, step, arg, lo, hi);
    bsp_sync();
    stamp a = now();
    for (int i = 0; i < n; ++i) step(c, arg);
    return since(c, a, 1) / n;
}

/* --------------------------------------------------------------- sync */
static void step_sync(ctx *c, int unused) {
    (void)c; (void)unused;
    bsp_sync();
}

/* ---------------------------------------------------- 8-byte words */
/* Word i of pid s goes to pid (s+i)%P, slot s*w_slot + i/P there. */
static void step_put8(ctx *c, int h) {
    const int P = c->P, s = c->s;
    for (int i = 0; i < h; ++i)
        bsp_put((s + i) % P, &c->w_src[i], c->w_dst,
                (size_t)(s * c->w_slot + i / P) * sizeof(double), sizeof(double));
    bsp_sync();
}

static void step_hpput8(ctx *c, int h) {
    const int P = c->P, s = c->s;
    for (int i = 0; i < h; ++i)
        bsp_hpput((s + i) % P, &c->w_src[i], c->w_dst,
                  (size_t)(s * c->w_slot + i / P) * sizeof(double), sizeof(double));
    bsp_sync();
}

/* The H_CALL puts of step_put8(H_CALL), with the index arithmetic done by
   counters so that the loop costs little besides the calls themselves. */
static void put_loop(ctx *c) {
    const int P = c->P, base = c->s * c->w_slot;
    int q = c->s, r = 0, j = 0;
    for (int i = 0; i < H_CALL; ++i) {
        bsp_put(q, &c->w_src[i], c->w_dst, (size_t)(base + j) * sizeof(double),
                sizeof(double));
        if (++q == P) q = 0;
        if (++r == P) { r = 0; ++j; }
    }
}

static void step_put_call(ctx *c, int unused) {
    (void)unused;
    put_loop(c);
    bsp_sync();
}

static double word_value(int src, int i, int round) {
    return src * 1e6 + i + round / 8.0;   /* rounds 0..7 stay distinct */
}

static void fill_words(ctx *c, int round) {
    for (int i = 0; i < H_MAX; ++i) c->w_src[i] = word_value(c->s, i, round);
    for (int i = 0; i < c->w_slot * c->P; ++i) c->w_dst[i] = -1;
}

/* After an h = H_MAX superstep every slot a word was meant for holds it,
   every other slot still holds -1. */
static void check_words(ctx *c, int round, const char *what) {
    const int P = c->P, s = c->s;
    for (int q = 0; q < P; ++q)
        for (int k = 0; k < c->w_slot; ++k) {
            /* slot (q, k) receives word i of q with i/P == k, (q+i)%P == s */
            int i = k * P + ((s - q) % P + P) % P;
            double want = i < H_MAX ? word_value(q, i, round) : -1;
            if (c->w_dst[q * c->w_slot + k] != want)
                fail(c, what, (long)q * c->w_slot + k);
        }
}

/* The timed supersteps all move the same values, so a lost word could hide
   behind an earlier copy: one more superstep from cleared destinations with
   new values proves a whole h = H_MAX superstep (H_CALL == H_MAX). */
static void clean_check_words(ctx *c, step_fn step, int round, const char *what) {
    fill_words(c, round);
    bsp_sync();
    step(c, H_MAX);
    check_words(c, round, what);
    bsp_sync();
}

static const int k_hs[MICRO_NH] = {0, 16, 64, 256, 1024, 4096, H_MAX};

static int cmp_float(const void *a, const void *b) {
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

static void bench_words(ctx *c) {
    const int P = c->P;
    c->w_slot = (H_MAX + P - 1) / P;
    c->w_src = malloc(sizeof(double) * H_MAX);
    c->w_dst = malloc(sizeof(double) * (size_t)c->w_slot * P);
    if (!c->w_src || !c->w_dst) fail(c, "malloc", 0);
    bsp_push_reg(c->w_dst, sizeof(double) * (size_t)c->w_slot * P);
    bsp_sync();

    /* cost of one bsp_put call alone: the put loop is timed, the sync that
       delivers its puts is not; median over the loops */
    fill_words(c, 0);
    bsp_sync();
    int n = calibrate(c, step_put_call, 0, 5, 20000);
    float *loop_s = malloc(sizeof(float) * (size_t)n);
    if (!loop_s) fail(c, "malloc", n);
    bsp_sync();
    double total = 0;
    for (int k = 0; k < n; ++k) {
        stamp a = now();
        put_loop(c);
        loop_s[k] = (float)since(c, a, 0);
        total += loop_s[k];
        bsp_sync();
    }
    qsort(loop_s, (size_t)n, sizeof(float), cmp_float);
    c->r.put_call_med_s = loop_s[n / 2] / H_CALL;
    c->r.put_call_mean_s = total / n / H_CALL;
    free(loop_s);
    check_words(c, 0, "put-call verification");
    clean_check_words(c, step_put_call, 1, "put-call clean verification");

    /* h-relations of single 8-byte bsp_puts, then of bsp_hpputs */
    fill_words(c, 2);
    bsp_sync();
    for (int k = 0; k < MICRO_NH; ++k) {
        c->r.hs[k] = k_hs[k];
        c->r.put8_T[k] = measure(c, step_put8, k_hs[k], 3, 1000000);
    }
    check_words(c, 2, "put8 verification");
    clean_check_words(c, step_put8, 3, "put8 clean verification");

    fill_words(c, 4);
    bsp_sync();  /* nobody hpputs before everybody cleared its w_dst */
    for (int k = 0; k < MICRO_NH; ++k)
        c->r.hpput8_T[k] = measure(c, step_hpput8, k_hs[k], 3, 1000000);
    check_words(c, 4, "hpput8 verification");
    clean_check_words(c, step_hpput8, 5, "hpput8 clean verification");

    bsp_pop_reg(c->w_dst);
    bsp_sync();
    free(c->w_src); free(c->w_dst);
}

/* --------------------------------------------------------- big blocks */
/* Every core moves one block with every other core: b_src holds one block
   per destination, b_dst one slot per source. */
static void step_blocks(ctx *c, int mode) {
    const int P = c->P, s = c->s, B = c->b_blk;
    for (int k = 1; k < P; ++k) {
        int q = (s + k) % P;
        switch (mode) {
        case B_PUT:    /* my block for q lands in q's slot s */
            bsp_put(q, c->b_src + (size_t)q * B, c->b_dst, (size_t)s * B, B);
            break;
        case B_HPPUT:
            bsp_hpput(q, c->b_src + (size_t)q * B, c->b_dst, (size_t)s * B, B);
            break;
        case B_GET:    /* q's block for me lands in my slot q */
            bsp_get(q, c->b_src, (size_t)s * B, c->b_dst + (size_t)q * B, B);
            break;
        case B_HPGET:
            bsp_hpget(q, c->b_src, (size_t)s * B, c->b_dst + (size_t)q * B, B);
            break;
        }
    }
    bsp_sync();
}

static char blk_byte(int src, size_t j) {
    return (char)(src * 31 + j * 7);
}

/* slot q of b_dst holds q's bytes [s*B, (s+1)*B); my own slot is untouched */
static void check_blocks(ctx *c, int mode) {
    const int P = c->P, s = c->s;
    const size_t B = (size_t)c->b_blk;
    for (int q = 0; q < P; ++q)
        for (size_t i = 0; i < B; ++i) {
            char want = q == s ? 0 : blk_byte(q, (size_t)s * B + i);
            if (c->b_dst[(size_t)q * B + i] != want)
                fail(c, "block verification", mode * 1000 + q);
        }
}

static void bench_blocks(ctx *c) {
    const int P = c->P, s = c->s;
    c->b_blk = P > 1 ? (c->blk_total / (P - 1)) & ~63 : 0;
    const int B = c->b_blk;
    size_t bytes = (size_t)B * P;
    c->b_src = malloc(bytes ? bytes : 1);
    c->b_dst = malloc(bytes ? bytes : 1);
    if (!c->b_src || !c->b_dst) fail(c, "malloc", (long)bytes);
    for (size_t j = 0; j < bytes; ++j) c->b_src[j] = blk_byte(s, j);
    memset(c->b_dst, 0, bytes);
    bsp_push_reg(c->b_src, bytes);
    bsp_sync();
    bsp_push_reg(c->b_dst, bytes);
    bsp_sync();
    c->r.blk_bytes = B;

    for (int m = 0; m < MICRO_NBLK; ++m) {
        c->r.blk_T[m] = measure(c, step_blocks, m, 3, 100000);
        check_blocks(c, m);
        /* and one superstep from cleared destinations */
        memset(c->b_dst, 0, bytes);
        bsp_sync();  /* nobody writes before everybody cleared its b_dst */
        step_blocks(c, m);
        check_blocks(c, m);
        memset(c->b_dst, 0, bytes);
        bsp_sync();
    }
    bsp_pop_reg(c->b_dst);
    bsp_sync();
    bsp_pop_reg(c->b_src);
    bsp_sync();
    free(c->b_src); free(c->b_dst);
}

/* ---------------------------------------------------------------- send */
/* Payload: index i (2 bytes), source pid (2 bytes), 12 bytes of a pattern
   of the source. Message i of pid s goes to pid (s+i)%P. */
static unsigned char msg_byte(int src, int k) {
    return (unsigned char)(src * 37 + k * 11 + 5);
}

static void check_message(ctx *c, const unsigned char *m) {
    const int P = c->P;
    int i = m[0] | m[1] << 8, src = m[2] | m[3] << 8;
    if (src >= P || i >= NMSG || (src + i) % P != c->s)
        fail(c, "send routing", (long)src * NMSG + i);
    for (int k = 4; k < MSGLEN; ++k)
        if (m[k] != msg_byte(src, k)) fail(c, "send payload", k);
    long bit = (long)src * NMSG + i;
    if (c->seen[bit >> 3] & (1 << (bit & 7))) fail(c, "send duplicate", bit);
    c->seen[bit >> 3] |= (unsigned char)(1 << (bit & 7));
}

/* full != 0: check every byte, tag and duplicate (untimed rounds only);
   timed rounds check counts and the sum of source pids, like bsp_micro. */
static void step_send(ctx *c, int full) {
    const int P = c->P, s = c->s;
    unsigned char msg[MSGLEN], tag[8] = {0};
    for (int k = 2; k < MSGLEN; ++k) msg[k] = msg_byte(s, k);
    msg[2] = (unsigned char)s; msg[3] = (unsigned char)(s >> 8);
    for (int i = 0; i < NMSG; ++i) {
        msg[0] = (unsigned char)i; msg[1] = (unsigned char)(i >> 8);
        bsp_send((s + i) % P, tag, msg, MSGLEN);
    }
    bsp_sync();
    bsp_nprocs_t n = 0;
    bsp_size_t nbytes = 0;
    bsp_qsize(&n, &nbytes);
    if ((long)n != c->msg_expect || (long)nbytes != c->msg_expect * MSGLEN)
        fail(c, "send qsize", (long)n);
    unsigned char buf[MSGLEN];
    long srcsum = 0;
    if (full) memset(c->seen, 0, ((size_t)P * NMSG + 7) / 8);
    for (bsp_nprocs_t k = 0; k < n; ++k) {
        if (full) {
            bsp_size_t status = 0;
            bsp_get_tag(&status, tag);
            if (status != MSGLEN) fail(c, "send get_tag", (long)status);
        }
        bsp_move(buf, MSGLEN);
        srcsum += buf[2] | buf[3] << 8;
        if (full) check_message(c, buf);
    }
    if (srcsum != c->msg_srcsum_expect) fail(c, "send source sum", srcsum);
    if (full) {
        bsp_size_t status = 0;
        bsp_get_tag(&status, tag);
        if (status != (bsp_size_t)-1) fail(c, "send empty queue", (long)status);
    }
}

static void bench_send(ctx *c) {
    const int P = c->P, s = c->s;
    c->msg_expect = c->msg_srcsum_expect = 0;
    for (int q = 0; q < P; ++q)
        for (int i = 0; i < NMSG; ++i)
            if ((q + i) % P == s) { c->msg_expect++; c->msg_srcsum_expect += q; }
    c->seen = calloc(((size_t)P * NMSG + 7) / 8, 1);
    if (!c->seen) fail(c, "malloc", 0);
    bsp_size_t tagsize = 0;    /* like bsp_micro: no tag */
    bsp_set_tagsize(&tagsize);
    bsp_sync();
    step_send(c, 1);
    c->r.send_T = measure(c, step_send, 0, 3, 100000);
    step_send(c, 1);
    free(c->seen);
}

/* ------------------------------------------------------------- report */
/* least squares T = l + g h (as host_micro.c) */
static void fit(const int *hs, const double *T, int n, double *g, double *l) {
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (int k = 0; k < n; ++k) {
        sx += hs[k]; sy += T[k];
        sxx += (double)hs[k] * hs[k]; sxy += hs[k] * T[k];
    }
    *g = (n * sxy - sx * sy) / (n * sxx - sx * sx);
    *l = (sy - *g * sx) / n;
}

static void print_words(const char *name, const micro_result *r, const double *T) {
    double g, l;
    for (int k = 0; k < MICRO_NH; ++k)
        printf("DETAIL %s h=%d T_us=%.3f\n", name, r->hs[k], T[k] * 1e6);
    fit(r->hs, T, MICRO_NH, &g, &l);
    int hmax = r->hs[MICRO_NH - 1];
    printf("RESULT %s_g_ns %.4f ns/word\n", name, g * 1e9);
    printf("RESULT %s_l_us %.4f us\n", name, l * 1e6);
    printf("RESULT %s_gmax_ns %.4f ns/word\n", name, (T[MICRO_NH - 1] - T[0]) / hmax * 1e9);
}

enum { T_SYNC = 1, T_WORDS = 2, T_BLOCKS = 4, T_SEND = 8, T_ALL = 15 };

static void report(const micro_result *r, int tests) {
    const int P = r->nprocs;
    printf("RESULT P %d procs\n", P);
    if (tests & T_SYNC)
        printf("RESULT sync_us %.4f us\n", r->sync_s * 1e6);
    if (tests & T_WORDS) {
        print_words("put8", r, r->put8_T);
        print_words("hpput8", r, r->hpput8_T);
    }
    const char *nm[MICRO_NBLK] = {"put", "hpput", "get", "hpget"};
    double h = (double)r->blk_bytes * (P > 1 ? P - 1 : 0);
    for (int m = 0; m < MICRO_NBLK && (tests & T_BLOCKS); ++m) {
        printf("DETAIL blk mode=%s blk_bytes=%d T_us=%.3f\n", nm[m], r->blk_bytes, r->blk_T[m] * 1e6);
        printf("RESULT %s_blk_GBps %.4f GB/s\n", nm[m], h / r->blk_T[m] / 1e9);
        printf("RESULT %s_blk_aggr_GBps %.4f GB/s\n", nm[m], h * P / r->blk_T[m] / 1e9);
    }
    if (tests & T_SEND) {
        printf("DETAIL send nmsg=%d msglen=%d T_us=%.3f\n", r->nmsg, MSGLEN, r->send_T * 1e6);
        printf("RESULT send16_Mmsgps %.4f Mmsg/s\n", r->nmsg / r->send_T / 1e6);
        printf("RESULT send16_aggr_Mmsgps %.4f Mmsg/s\n", (double)P * r->nmsg / r->send_T / 1e6);
    }
    if (tests & T_WORDS) {
        printf("DETAIL put_call mean_ns=%.3f\n", r->put_call_mean_s * 1e9);
        printf("RESULT put_call_ns %.4f ns\n", r->put_call_med_s * 1e9);
    }
    printf("DETAIL run_s=%.3f\n", r->run_s);
}

/* "sync,send" -> T_SYNC | T_SEND; 0 for a name it does not know */
static int parse_tests(const char *s) {
    static const char *const names[] = {"sync", "words", "blocks", "send", "all"};
    static const int bits[] = {T_SYNC, T_WORDS, T_BLOCKS, T_SEND, T_ALL};
    int tests = 0;
    while (*s) {
        size_t n = strcspn(s, ",");
        int k = 0;
        while (k < 5 && !(strlen(names[k]) == n && strncmp(s, names[k], n) == 0)) ++k;
        if (k == 5) return 0;
        tests |= bits[k];
        s += n;
        if (*s == ',') ++s;
    }
    return tests;
}

/* ---------------------------------------------------------------- main */
static int P_arg;
static double target_arg;
static int blk_kib_arg;
static int tests_arg;
static micro_result result0;
static int ok0;

static void spmd(void) {
    bsp_begin(P_arg);
    ctx *c = calloc(1, sizeof(ctx));
    if (!c) bsp_abort("bsp_micro: out of memory on pid %u\n", (unsigned)bsp_pid());
    c->s = (int)bsp_pid();
    c->P = (int)bsp_nprocs();
    c->r.magic = MICRO_MAGIC;
    c->r.pid = c->s;
    c->r.nprocs = c->P;
    c->r.status = 1;
    c->r.nmsg = NMSG;
    c->target = target_arg;
    c->blk_total = blk_kib_arg * 1024;

    bsp_push_reg(&c->bcast, sizeof(int));
    bsp_sync();

    if (tests_arg & T_SYNC) c->r.sync_s = measure(c, step_sync, 0, 10, 20000000);
    if (tests_arg & T_WORDS) bench_words(c);
    if (tests_arg & T_BLOCKS) bench_blocks(c);
    if (tests_arg & T_SEND) bench_send(c);

    bsp_pop_reg(&c->bcast);
    bsp_sync();
    c->r.run_s = bsp_time();
    if (c->s == 0) {
        result0 = c->r;
        ok0 = c->r.status == 1;
    }
    bsp_end();
    free(c);
}

int main(int argc, char **argv) {
    /* the arguments before bsp_init: under mpirun the other ranks run spmd
     * from bsp_init, with what main has read by then */
    P_arg = argc > 1 ? atoi(argv[1]) : 0;
    target_arg = argc > 2 ? atof(argv[2]) : 0.5;
    blk_kib_arg = argc > 3 ? atoi(argv[3]) : 1024;
    tests_arg = argc > 4 ? parse_tests(argv[4]) : T_ALL;
#ifdef BSP_MICRO_MCBSP
    if (P_arg > 0) mcbsp_set_maximum_threads((size_t)P_arg);
#endif
    bsp_init(spmd, argc, argv);
    if (P_arg <= 0) P_arg = (int)bsp_nprocs();
    if (target_arg <= 0 || blk_kib_arg <= 0 || blk_kib_arg > 1024 * 1024 || P_arg > (int)bsp_nprocs() ||
        tests_arg == 0) {
        fprintf(stderr, "usage: bsp_micro [P] [seconds_per_test] [block_KiB_per_core]"
                " [tests: sync,words,blocks,send or all]\n");
        return 2;
    }
    spmd();
    if (!ok0) {
        printf("bsp_micro: FAILED\n");
        return 1;
    }
    report(&result0, tests_arg);
    return 0;
}
