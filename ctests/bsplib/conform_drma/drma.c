/*
 * BSPlib conformance: registration and DRMA. Every check prints one line
 * "$PP: name: ok" (or what went wrong) on every core, or on the cores the
 * check concerns.
 */
#include <bsp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void say(const char *format, ...)
{
    char line[256];
    va_list ap;
    va_start(ap, format);
    vsnprintf(line, sizeof line, format, ap);
    va_end(ap);
    printf("$%02u: %s\n", (unsigned)bsp_pid(), line);
}

static void check(const char *name, int ok)
{
    say("%s: %s", name, ok ? "ok" : "FAILED");
}

static void spmd(void)
{
    bsp_begin(bsp_nprocs());
    bsp_pid_t s = bsp_pid();
    bsp_nprocs_t p = bsp_nprocs();
    bsp_pid_t next = (s + 1) % p, prev = (s + p - 1) % p;

    /* bsp_time starts near 0 at bsp_begin and never goes back */
    double t0 = bsp_time(), last = t0;
    int monotonic = t0 >= 0 && t0 < 10;
    for (int i = 0; i < 10000; i++) {
        double t = bsp_time();
        monotonic &= t >= last;
        last = t;
    }

    /* pid 0 registers NULL with size 0, the others a cell of their own;
     * pid 0 names the variable by its NULL when it puts */
    int cell = -1;
    bsp_push_reg(s == 0 ? NULL : &cell, s == 0 ? 0 : sizeof cell);
    bsp_sync();
    monotonic &= bsp_time() >= last;
    if (s == 0)
        for (bsp_pid_t t = 1; t < p; t++) {
            int v = 40 + (int)t;
            bsp_put(t, &v, NULL, 0, sizeof v);
        }
    if (s == 1) /* 0 bytes into pid 0's 0-byte registration */
        bsp_put(0, &cell, &cell, 0, 0);
    bsp_sync();
    if (s != 0)
        check("put through a NULL registration", cell == 40 + (int)s);
    bsp_pop_reg(s == 0 ? NULL : &cell);

    /* registered sizes differ per core: core s has 2(s+1) ints; the
     * predecessor writes the last one, at a byte offset */
    int *arr = calloc(2 * (s + 1), sizeof(int));
    bsp_push_reg(arr, 2 * (s + 1) * sizeof(int));
    bsp_sync();
    int v = 1000 * (int)s + (int)next;
    bsp_put(next, &v, arr, (2 * next + 1) * sizeof(int), sizeof v);
    /* 0 bytes with NULL buffers are no requests at all */
    bsp_put(next, NULL, arr, 0, 0);
    bsp_get(next, arr, 0, NULL, 0);
    bsp_hpput(next, NULL, arr, 0, 0);
    bsp_hpget(next, arr, 0, NULL, 0);
    bsp_sync();
    check("sizes per core, offsets", arr[2 * s + 1] == 1000 * (int)prev + (int)s && arr[0] == 0);

    /* the source of a bsp_put is copied at the call */
    int x = 10 * (int)s, src = 1;
    bsp_push_reg(&x, sizeof x);
    bsp_sync();
    bsp_put(next, &src, &x, 0, sizeof src);
    src = 2;
    bsp_sync();
    check("put buffers its source", x == 1);

    /* all gets of a superstep before any put: the get of prev's x sees
     * the value from before the put that overwrites it */
    x = 10 * (int)s;
    bsp_sync();
    int y = -1, z = 99;
    bsp_put(next, &z, &x, 0, sizeof z);
    bsp_get(prev, &x, 0, &y, sizeof y);
    bsp_sync();
    check("get before put", y == 10 * (int)prev && x == 99);

    /* so a get can rotate values in place */
    x = 10 * (int)s;
    bsp_sync();
    bsp_get(next, &x, 0, &x, sizeof x);
    bsp_sync();
    check("get in place", x == 10 * (int)next);

    /* put and get to oneself */
    int me = 0, val = 7 + (int)s;
    bsp_put(s, &val, &x, 0, sizeof val);
    bsp_get(s, &x, 0, &me, sizeof me); /* served before the put */
    bsp_sync();
    check("put and get to oneself", x == 7 + (int)s && me == 10 * (int)next);

    /* bsp_hpput lands by the next sync; bsp_hpget and bsp_direct_get read
     * at once what is there */
    x = 100 + (int)s;
    bsp_sync();
    int h = 500 + (int)s, got = -1;
#ifndef CONFORM_MPI
    int direct = -1;
    bsp_hpget(next, &x, 0, &got, sizeof got);
    bsp_direct_get(prev, &x, 0, &direct, sizeof direct);
    check("hpget and direct_get read at once", got == 100 + (int)next && direct == 100 + (int)prev);
    bsp_sync(); /* nobody hpputs before everybody read */
#else
    /* under mpirun (the MPI test builds with -DCONFORM_MPI): bsp_direct_get
     * of a core in another rank is refused, bsp_hpget of one completes at
     * the next sync (BSPlib allows both) */
    bsp_hpget(next, &x, 0, &got, sizeof got);
    bsp_sync();
    check("hpget by the next sync", got == 100 + (int)next);
#endif
    bsp_hpput(next, &h, &x, 0, sizeof h);
    bsp_sync();
    check("hpput", x == 500 + (int)prev);

    /* a variable registered twice: the newest registration counts, and
     * bsp_pop_reg withdraws it */
    double w[2] = {0, 0};
    bsp_push_reg(w, sizeof(double));
    bsp_sync();
    bsp_push_reg(w, sizeof w);
    bsp_sync();
    double pair[2] = {1.5, 2.5};
    bsp_put(next, pair, w, 0, sizeof pair); /* 16 bytes: the newest registration */
    bsp_sync();
    int twice = w[0] == 1.5 && w[1] == 2.5;
    bsp_pop_reg(w);
    bsp_sync();
    double one = 3.5;
    bsp_put(next, &one, w, 0, sizeof one); /* the first registration is back */
    bsp_sync();
    check("registered twice, popped once", twice && w[0] == 3.5);
    bsp_pop_reg(w);

    /* offsets of a large array, as size_t */
    size_t n = 100000;
    double *big = calloc(n, sizeof(double));
    bsp_push_reg(big, n * sizeof(double));
    bsp_sync();
    double last_val = 1.0 + s;
    bsp_put(next, &last_val, big, (n - 1) * sizeof(double), sizeof(double));
    bsp_sync();
    double back = 0;
    bsp_get(prev, big, (n - 1) * sizeof(double), &back, sizeof back);
    bsp_sync();
    check("large offsets", big[n - 1] == 1.0 + prev && back == 1.0 + ((prev + p - 1) % p));

    /* puts of 32 KiB and more (under mpirun their bytes travel apart and
     * may land in the target as they arrive): issue order against
     * overlapping puts before and after them, the source copied at the
     * call, and a get of the same superstep reads the bytes from before */
    size_t m = 8192; /* 64 KiB of doubles */
    double *blk = malloc(m * sizeof(double));
    for (size_t i = 0; i < m; i++)
        blk[i] = 1.0 + s;
    double early = -1, late = -2;
    bsp_put(next, &early, big, 8 * sizeof(double), sizeof early); /* the block overwrites it */
    bsp_put(next, blk, big, 0, m * sizeof(double));
    bsp_put(next, &late, big, 16 * sizeof(double), sizeof late); /* overwrites the block */
    for (size_t i = 0; i < m; i++)
        blk[i] = -3;
    bsp_sync();
    int order = big[0] == 1.0 + prev && big[8] == 1.0 + prev && big[16] == -2 && big[m - 1] == 1.0 + prev;
    for (size_t i = 0; i < m; i++)
        blk[i] = 100.0 + s;
    double seen = 0;
    bsp_put(next, blk, big, 0, m * sizeof(double));
    bsp_get(next, big, (m - 1) * sizeof(double), &seen, sizeof seen);
    bsp_sync();
    int after_get = seen == 1.0 + s && big[0] == 100.0 + prev && big[m - 1] == 100.0 + prev;
    for (size_t i = 0; i < m; i++)
        blk[i] = 200.0 + s;
    double elsewhere = -4;
    bsp_put(next, &elsewhere, big, (m + 8) * sizeof(double), sizeof elsewhere);
    bsp_put(next, blk, big, 0, m * sizeof(double)); /* nothing before it overlaps: lands at once */
    bsp_put(next, &late, big, 24 * sizeof(double), sizeof late);
    for (size_t i = 0; i < m; i++)
        blk[i] = -5;
    bsp_sync();
    int alone = big[0] == 200.0 + prev && big[m - 1] == 200.0 + prev && big[24] == -2 && big[m + 8] == -4;
    check("puts of 64 KiB: issue order, source copied, gets first", order && after_get && alone);

    /* hpputs of 64 KiB (under mpirun, to another rank, sent from their
     * source in the sync): alone, then at an offset beside a small put in
     * a superstep with a get elsewhere (in one process an hpput writes at
     * once: nobody hpputs before everybody read) */
    bsp_sync();
    for (size_t i = 0; i < m; i++)
        blk[i] = 300.0 + s;
    bsp_hpput(next, blk, big, 0, m * sizeof(double));
    bsp_sync();
    int hp_alone = big[0] == 300.0 + prev && big[m - 1] == 300.0 + prev;
    bsp_sync();
    double *blk2 = malloc(m * sizeof(double));
    for (size_t i = 0; i < m; i++)
        blk2[i] = 400.0 + s;
    double first = -6;
    seen = 0;
    bsp_put(next, &first, big, 0, sizeof first);
    bsp_hpput(next, blk2, big, 8 * sizeof(double), (m - 8) * sizeof(double));
    bsp_get(next, big, (m + 8) * sizeof(double), &seen, sizeof seen);
    bsp_sync();
    int hp_offset = big[0] == -6 && big[7] == 300.0 + prev && big[8] == 400.0 + prev && big[m - 1] == 400.0 + prev &&
                    seen == -4;
    bsp_sync();
    /* a put after an hpput of 64 KiB to the same bytes wins, as in one
     * process, where the hpput writes at once */
    for (size_t i = 0; i < m; i++)
        blk[i] = 500.0 + s;
    double later = -7;
    bsp_hpput(next, blk, big, 0, m * sizeof(double));
    bsp_put(next, &later, big, 8 * sizeof(double), sizeof later);
    bsp_sync();
    int hp_then_put = big[0] == 500.0 + prev && big[8] == -7 && big[m - 1] == 500.0 + prev;
    check("hpputs of 64 KiB", hp_alone && hp_offset && hp_then_put);

    /* gets of 64 KiB (under mpirun, from another rank, sent from their
     * source and landing in their destination in the sync): into the very
     * bytes the previous core gets from in the same superstep, with a put
     * to them that wins; then beside small gets to the same bytes, which
     * keep issue order */
    for (size_t i = 0; i < 2 * m; i++)
        big[i] = (i < m ? 600.0 : 700.0) + s;
    bsp_sync();
    double mark = -8;
    bsp_get(next, big, 0, big, m * sizeof(double));
    bsp_put(next, &mark, big, 16 * sizeof(double), sizeof mark);
    bsp_sync();
    int swapped = big[0] == 600.0 + next && big[16] == -8 && big[m - 1] == 600.0 + next && big[m] == 700.0 + s;
    bsp_sync();
    double *out = calloc(m, sizeof(double));
    bsp_get(next, big, m * sizeof(double), out + 8, sizeof(double));      /* the large get overwrites it */
    bsp_get(next, big, 0, out, m * sizeof(double));                        /* from 600 + next's next */
    bsp_get(next, big, (m + 1) * sizeof(double), out + 16, sizeof(double)); /* overwrites the large get */
    bsp_sync();
    double nn = 600.0 + (next + 1) % p;
    int in_order = out[0] == nn && out[8] == nn && out[16] == 700.0 + next && out[m - 1] == nn;
    check("gets of 64 KiB: sources read first, puts win, issue order", swapped && in_order);
    free(out);
    free(blk2);
    free(blk);
    bsp_pop_reg(big);
    bsp_pop_reg(&x);
    bsp_pop_reg(arr);
    bsp_sync();
    free(big);
    free(arr);

    check("bsp_time monotonic", monotonic && bsp_time() >= last);
    if (s == 0)
        say("nprocs in the section: %u", (unsigned)p);
    bsp_end();
}

int main(int argc, char **argv)
{
    bsp_init(spmd, argc, argv);
    printf("cores available: %u\n", (unsigned)bsp_nprocs());
    spmd();
#ifndef CONFORM_MPI /* under mpirun: rank 0's cores, the other ranks ended */
    printf("cores available after the section: %u\n", (unsigned)bsp_nprocs());
#endif
    return 0;
}
