/*
 * inprod.c -- the inner product of two distributed vectors, in the style of
 * a BSP textbook program: main calls bsp_init and then the SPMD function,
 * which every core runs.
 *
 * x = y = (1, 2, ..., n), distributed cyclically: core s holds the
 * components s, s+p, s+2p, ... Each core sums its products, puts the
 * partial sum into slot s of every core's table (one superstep), and every
 * core adds the table up. The result is checked against the closed form
 * n(n+1)(2n+1)/6 (exact in double for n below 2^17).
 *
 * Only pid 0 has the n that main read (under mpirun the other processes
 * run bspinprod at once), so pid 0 sends n to every core
 * in the first superstep (a message: no registration needed), and a core
 * with a wrong result sends pid 0 a message in the last one; pid 0 counts
 * them and prints the summary.
 *     bspcc inprod.c -o inprod && ./inprod [P] [n]
 */
#include <bsp.h>
#include <stdio.h>
#include <stdlib.h>

static bsp_nprocs_t P; /* cores to use: set by main, read by pid 0 */
static long n;         /* vector length: set by main, read by pid 0 */
static int failures;   /* cores with a wrong result: pid 0's count, for main */

/* The number of components of a cyclically distributed vector of length n
 * that core s of p holds. */
static long nloc(bsp_nprocs_t p, bsp_pid_t s, long n)
{
    return (n + (long)p - (long)s - 1) / (long)p;
}

static double bspip(bsp_nprocs_t p, bsp_pid_t s, long n, const double *x, const double *y, double *Inprod)
{
    double inprod = 0.0;
    for (long i = 0; i < nloc(p, s, n); i++)
        inprod += x[i] * y[i];
    for (bsp_pid_t t = 0; t < p; t++)
        bsp_put(t, &inprod, Inprod, s * sizeof(double), sizeof(double));
    bsp_sync();
    double alpha = 0.0;
    for (bsp_pid_t t = 0; t < p; t++)
        alpha += Inprod[t];
    return alpha;
}

static void bspinprod(void)
{
    bsp_begin(P);
    bsp_nprocs_t p = bsp_nprocs();
    bsp_pid_t s = bsp_pid();
    double *Inprod = malloc(p * sizeof(double));
    if (!Inprod)
        bsp_abort("inprod: out of memory on core %u\n", s);
    bsp_push_reg(Inprod, p * sizeof(double));
    if (s == 0) /* only pid 0 has main's n: it sends it to every core */
        for (bsp_pid_t t = 0; t < p; t++)
            bsp_send(t, NULL, &n, sizeof n);
    bsp_sync();

    long len;
    bsp_move(&len, sizeof len);
    long nl = nloc(p, s, len);
    double *x = malloc((nl > 0 ? nl : 1) * sizeof(double));
    if (!x)
        bsp_abort("inprod: out of memory on core %u\n", s);
    for (long i = 0; i < nl; i++)
        x[i] = (double)(i * (long)p + (long)s + 1); /* global index i*p+s, value index+1 */
    double alpha = bspip(p, s, len, x, x, Inprod);

    double exact = (double)len * (double)(len + 1) * (double)(2 * len + 1) / 6.0;
    if (alpha != exact) {
        printf("core %u: inner product %.17g, expected %.17g: FAILED\n", s, alpha, exact);
        bsp_send(0, NULL, &s, sizeof s); /* pid 0 counts the messages */
    }
    if (s == 0)
        printf("inner product of (1..%ld) with itself on %u cores: %.0f\n", len, p, alpha);
    bsp_pop_reg(Inprod);
    bsp_sync();
    if (s == 0) {
        bsp_nprocs_t nfailed;
        bsp_size_t bytes;
        bsp_qsize(&nfailed, &bytes);
        failures = (int)nfailed;
    }
    free(x);
    free(Inprod);
    bsp_end();
}

int main(int argc, char **argv)
{
    bsp_init(bspinprod, argc, argv);
    P = argc > 1 ? (bsp_nprocs_t)atoi(argv[1]) : bsp_nprocs();
    n = argc > 2 ? atol(argv[2]) : 100000;
    if (P < 1 || P > bsp_nprocs() || n < 1 || n >= 1L << 17) {
        fprintf(stderr, "usage: inprod [P (1..%u)] [n (1..131071)]\n", bsp_nprocs());
        return 2;
    }
    bspinprod(); /* main goes on as pid 0 */
    printf("%s\n", failures ? "inprod: FAILED" : "inprod: OK (every core has the exact value)");
    return failures != 0;
}
