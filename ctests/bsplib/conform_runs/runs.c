/*
 * BSPlib conformance: runs of small puts. A loop of small puts to
 * consecutive bytes of one core may be carried as one run (across MPI
 * ranks the shim packs it as one record); every check here is one where
 * such a run must end exactly as the puts one by one would: interleaved
 * destinations, odd sizes, a later put over part of a run, a run that
 * moves on to another variable, messages and gets between puts, a run
 * long enough to be sent apart, and bsp_hpput. Every check prints
 * "$PP: name: ok" (or FAILED with the first wrong byte) on every core.
 */
#include <bsp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { WORDS = 1024, LONG_WORDS = 8192, ODD = 3 };

static void say(const char *format, ...)
{
    char line[256];
    va_list ap;
    va_start(ap, format);
    vsnprintf(line, sizeof line, format, ap);
    va_end(ap);
    printf("$%02u: %s\n", (unsigned)bsp_pid(), line);
}

/* The byte source pid s puts at index i of a check's array. */
static unsigned char byte_of(unsigned s, unsigned i, unsigned salt)
{
    return (unsigned char)(s * 37u + i * 11u + salt * 101u + 1u);
}

/* Compares n bytes of got with want and prints the check's line. */
static void check_bytes(const char *name, const unsigned char *got, const unsigned char *want, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (got[i] != want[i]) {
            say("%s: FAILED at byte %zu: %u, want %u", name, i, (unsigned)got[i], (unsigned)want[i]);
            return;
        }
    say("%s: ok", name);
}

/* Every source s writes the words of its own slot of each destination,
 * word i of s's puts going to pid (s + i) % p at word i / p of the slot:
 * consecutive words for each destination, destinations interleaved. */
static void interleaved(unsigned s, unsigned p, int hp)
{
    size_t slot = WORDS / p;
    unsigned long long *src = malloc(WORDS * sizeof *src), *dst = calloc(slot * p, sizeof *dst);
    unsigned long long *want = malloc(slot * p * sizeof *want);
    for (unsigned i = 0; i < WORDS; i++)
        src[i] = (unsigned long long)s << 32 | i;
    bsp_push_reg(dst, slot * p * sizeof *dst);
    bsp_sync();
    for (unsigned i = 0; i < slot * p; i++) {
        unsigned q = (s + i) % p;
        if (hp)
            bsp_hpput(q, &src[i], dst, (s * slot + i / p) * sizeof *dst, sizeof *dst);
        else
            bsp_put(q, &src[i], dst, (s * slot + i / p) * sizeof *dst, sizeof *dst);
    }
    if (!hp) /* a put buffers its source */
        memset(src, 0, WORDS * sizeof *src);
    bsp_sync();
    for (unsigned q = 0; q < p; q++)
        for (unsigned k = 0; k < slot; k++) {
            unsigned i = k * p + (s + p - q) % p; /* the i of q's put that lands here */
            want[q * slot + k] = (unsigned long long)q << 32 | i;
        }
    check_bytes(hp ? "hpput words, destinations interleaved" : "put words, destinations interleaved",
                (unsigned char *)dst, (unsigned char *)want, slot * p * sizeof *dst);
    bsp_pop_reg(dst);
    bsp_sync();
    free(src), free(dst), free(want);
}

/* Each source puts ODD-byte pieces, one after another, into its slot of
 * the next pid: runs whose length is no multiple of 8. */
static void odd_sizes(unsigned s, unsigned p)
{
    enum { PIECES = 100 };
    size_t slot = PIECES * ODD;
    unsigned char *dst = calloc(slot * p, 1), *want = calloc(slot * p, 1), src[ODD];
    bsp_push_reg(dst, slot * p);
    bsp_sync();
    unsigned next = (s + 1) % p;
    for (unsigned k = 0; k < PIECES; k++) {
        for (unsigned b = 0; b < ODD; b++)
            src[b] = byte_of(s, k * ODD + b, 1);
        bsp_put(next, src, dst, s * slot + k * ODD, ODD);
    }
    bsp_sync();
    unsigned prev = (s + p - 1) % p;
    for (unsigned i = 0; i < slot; i++)
        want[prev * slot + i] = byte_of(prev, i, 1);
    check_bytes("3-byte puts one after another", dst, want, slot * p);
    bsp_pop_reg(dst);
    bsp_sync();
    free(dst), free(want);
}

/* A run, then puts over its middle and the run going on from there, all
 * to the next pid: the later puts win. */
static void over_a_run(unsigned s, unsigned p)
{
    enum { N = 64 };
    unsigned char dst[N] = {0}, want[N], v[8];
    bsp_push_reg(dst, N);
    bsp_sync();
    unsigned next = (s + 1) % p, prev = (s + p - 1) % p;
    for (unsigned k = 0; k < N / 8; k++) { /* bytes 0..63 */
        memset(v, byte_of(s, k, 2), 8);
        bsp_put(next, v, dst, k * 8, 8);
    }
    for (unsigned k = 2; k < 5; k++) { /* bytes 16..39 again, as a run */
        memset(v, byte_of(s, k, 3), 8);
        bsp_put(next, v, dst, k * 8, 8);
    }
    memset(v, byte_of(s, 99, 3), 4); /* bytes 20..23 once more */
    bsp_put(next, v, dst, 20, 4);
    bsp_sync();
    for (unsigned i = 0; i < N; i++)
        want[i] = byte_of(prev, i / 8, i >= 16 && i < 40 ? 3 : 2);
    memset(want + 20, byte_of(prev, 99, 3), 4);
    check_bytes("puts over part of a run", dst, want, N);
    bsp_pop_reg(dst);
    bsp_sync();
}

/* Runs that end at a variable's end and go on at the start of another,
 * and a run broken by messages and a get to the same pid. */
static void other_variables(unsigned s, unsigned p)
{
    enum { N = 32 };
    unsigned char a[N] = {0}, b[N] = {0}, wa[N], wb[N], v[8], got[8] = {0};
    bsp_push_reg(a, N);
    bsp_push_reg(b, N);
    bsp_size_t tagsize = 4;
    bsp_set_tagsize(&tagsize);
    bsp_sync();
    unsigned next = (s + 1) % p, prev = (s + p - 1) % p;
    for (unsigned k = 0; k < N / 8; k++) {
        memset(v, byte_of(s, k, 4), 8);
        bsp_put(next, v, a, k * 8, 8);
    }
    for (unsigned k = 0; k < N / 8; k++) {
        memset(v, byte_of(s, k, 5), 8);
        bsp_put(next, v, b, k * 8, 8);
        int tag = (int)k;
        if (k % 2 == 0)
            bsp_send(next, &tag, v, 8);
        else
            bsp_get(next, b, 0, got, 8); /* reads b before any put of this superstep */
    }
    bsp_sync();
    for (unsigned i = 0; i < N; i++) {
        wa[i] = byte_of(prev, i / 8, 4);
        wb[i] = byte_of(prev, i / 8, 5);
    }
    check_bytes("a run into another variable", a, wa, N);
    check_bytes("a run with messages and gets between", b, wb, N);
    bsp_nprocs_t n = 0;
    bsp_size_t bytes = 0;
    bsp_qsize(&n, &bytes);
    say("messages between puts: %s", n == N / 16 && bytes == N / 16 * 8 ? "ok" : "FAILED");
    unsigned char zero[8] = {0};
    check_bytes("a get between puts", got, zero, 8);
    tagsize = 0;
    bsp_set_tagsize(&tagsize);
    bsp_pop_reg(a);
    bsp_pop_reg(b);
    bsp_sync();
}

/* LONG_WORDS consecutive words to the next pid: a run of 64 KiB. */
static void long_run(unsigned s, unsigned p)
{
    unsigned long long *dst = calloc(LONG_WORDS, sizeof *dst), v;
    bsp_push_reg(dst, LONG_WORDS * sizeof *dst);
    bsp_sync();
    unsigned next = (s + 1) % p, prev = (s + p - 1) % p;
    for (unsigned i = 0; i < LONG_WORDS; i++) {
        v = (unsigned long long)s << 32 | (i * 7u);
        bsp_put(next, &v, dst, i * sizeof v, sizeof v);
    }
    bsp_sync();
    int ok = 1;
    for (unsigned i = 0; i < LONG_WORDS; i++)
        ok &= dst[i] == ((unsigned long long)prev << 32 | (i * 7u));
    say("a run of 64 KiB: %s", ok ? "ok" : "FAILED");
    bsp_pop_reg(dst);
    bsp_sync();
    free(dst);
}

static void spmd(void)
{
    bsp_begin(bsp_nprocs());
    unsigned s = (unsigned)bsp_pid(), p = (unsigned)bsp_nprocs();
    interleaved(s, p, 0);
    interleaved(s, p, 1);
    odd_sizes(s, p);
    over_a_run(s, p);
    other_variables(s, p);
    long_run(s, p);
    bsp_end();
}

int main(int argc, char **argv)
{
    bsp_init(spmd, argc, argv);
    spmd();
    return 0;
}
