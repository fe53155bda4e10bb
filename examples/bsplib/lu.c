/*
 * lu.c -- LU decomposition with partial pivoting of an n x n matrix,
 * distributed by rows (row i lives on core i mod p), checked against the
 * same algorithm run sequentially.
 *
 * Stage k takes two supersteps:
 *   1. every core puts its best pivot candidate in column k (largest
 *      |a_ik| of its rows i >= k, ties to the lowest row) into every
 *      core's candidate table; all cores then pick the same pivot row r;
 *   2. the owner of row r broadcasts it with bsp_put (the pivot row), and
 *      the owner of row k puts row k into row r's place (the swap).
 * Then every core scales the multipliers of its rows below k and updates
 * them with the pivot row. Finally pid 0 gets every row with bsp_get and
 * compares L\U and the permutation with its own sequential result.
 * Only pid 0 has the n that main read (under mpirun the other processes
 * run bsplu at once): it sends n to every core in a first superstep.
 *     bspcc lu.c -o lu -lm && ./lu [P] [n]
 */
#include <bsp.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bsp_nprocs_t P; /* set by main, read by pid 0 */
static int N;          /* the matrix order: set by main, read by pid 0 */
static int result = 1; /* written by pid 0 only, for main */

/* The matrix: a fixed pseudo-random function of (i, j). */
static double entry(int i, int j)
{
    unsigned long z = (unsigned long)i * 2654435761u + (unsigned long)j * 40503u + 17u;
    z ^= z >> 13;
    z *= 0x5bd1e995u;
    z ^= z >> 15;
    return (double)(z % 20001u) / 10000.0 - 1.0; /* in [-1, 1] */
}

/* Sequential LU with the same pivot rule and operation order. */
static void lu_seq(double *a, int *perm, int n)
{
    for (int i = 0; i < n; i++)
        perm[i] = i;
    for (int k = 0; k < n; k++) {
        int r = k;
        for (int i = k + 1; i < n; i++)
            if (fabs(a[(size_t)i * n + k]) > fabs(a[(size_t)r * n + k]))
                r = i;
        if (r != k) {
            for (int j = 0; j < n; j++) {
                double t = a[(size_t)k * n + j];
                a[(size_t)k * n + j] = a[(size_t)r * n + j];
                a[(size_t)r * n + j] = t;
            }
            int t = perm[k];
            perm[k] = perm[r];
            perm[r] = t;
        }
        for (int i = k + 1; i < n; i++) {
            double l = a[(size_t)i * n + k] / a[(size_t)k * n + k];
            a[(size_t)i * n + k] = l;
            for (int j = k + 1; j < n; j++)
                a[(size_t)i * n + j] -= l * a[(size_t)k * n + j];
        }
    }
}

struct candidate {
    double value; /* |a_ik| */
    int row;      /* -1: the core has no row >= k */
};

static void bsplu(void)
{
    bsp_begin(P);
    bsp_nprocs_t p = bsp_nprocs();
    bsp_pid_t s = bsp_pid();
    if (s == 0)
        for (bsp_pid_t t = 0; t < p; t++)
            bsp_send(t, NULL, &N, sizeof N);
    bsp_sync();
    int n;
    bsp_move(&n, sizeof n); /* N, from pid 0 */
    int nl = (n - (int)s + (int)p - 1) / (int)p; /* my rows: s, s+p, ... */
    double *a = malloc((size_t)(nl > 0 ? nl : 1) * n * sizeof(double));
    double *pivot = malloc((size_t)n * sizeof(double));
    struct candidate *cand = malloc(p * sizeof(struct candidate));
    int *perm = malloc((size_t)n * sizeof(int));
    if (!a || !pivot || !cand || !perm)
        bsp_abort("lu: out of memory on core %u\n", s);
    for (int il = 0; il < nl; il++)
        for (int j = 0; j < n; j++)
            a[(size_t)il * n + j] = entry(il * (int)p + (int)s, j);
    for (int i = 0; i < n; i++)
        perm[i] = i;
    bsp_push_reg(a, (size_t)nl * n * sizeof(double));
    bsp_push_reg(pivot, (size_t)n * sizeof(double));
    bsp_push_reg(cand, p * sizeof(struct candidate));
    bsp_sync();

    for (int k = 0; k < n; k++) {
        /* superstep 1: pivot candidates */
        struct candidate best = {-1.0, -1};
        for (int il = 0; il < nl; il++) {
            int i = il * (int)p + (int)s;
            if (i >= k && fabs(a[(size_t)il * n + k]) > best.value)
                best = (struct candidate){fabs(a[(size_t)il * n + k]), i};
        }
        for (bsp_pid_t t = 0; t < p; t++)
            bsp_put(t, &best, cand, s * sizeof best, sizeof best);
        bsp_sync();
        int r = -1;
        double rv = -1.0;
        for (bsp_pid_t t = 0; t < p; t++)
            if (cand[t].row >= 0 && (cand[t].value > rv || (cand[t].value == rv && cand[t].row < r))) {
                r = cand[t].row;
                rv = cand[t].value;
            }

        /* superstep 2: broadcast the pivot row, move row k to row r's place */
        if ((bsp_pid_t)(r % (int)p) == s)
            for (bsp_pid_t t = 0; t < p; t++)
                bsp_put(t, a + (size_t)(r / (int)p) * n, pivot, 0, (size_t)n * sizeof(double));
        if ((bsp_pid_t)(k % (int)p) == s && r != k)
            bsp_put((bsp_pid_t)(r % (int)p), a + (size_t)(k / (int)p) * n, a,
                    (size_t)(r / (int)p) * n * sizeof(double), (size_t)n * sizeof(double));
        bsp_sync();
        if ((bsp_pid_t)(k % (int)p) == s)
            memcpy(a + (size_t)(k / (int)p) * n, pivot, (size_t)n * sizeof(double));
        int t = perm[k];
        perm[k] = perm[r];
        perm[r] = t;

        /* the update of my rows below k */
        for (int il = 0; il < nl; il++) {
            int i = il * (int)p + (int)s;
            if (i <= k)
                continue;
            double *row = a + (size_t)il * n;
            double l = row[k] / pivot[k];
            row[k] = l;
            for (int j = k + 1; j < n; j++)
                row[j] -= l * pivot[j];
        }
    }

    /* pid 0 gathers the rows and compares them with the sequential LU */
    double *all = NULL;
    if (s == 0) {
        all = malloc((size_t)n * n * sizeof(double));
        if (!all)
            bsp_abort("lu: out of memory for the check\n");
        for (int i = 0; i < n; i++)
            bsp_get((bsp_pid_t)(i % (int)p), a, (size_t)(i / (int)p) * n * sizeof(double),
                    all + (size_t)i * n, (size_t)n * sizeof(double));
    }
    bsp_sync();
    if (s == 0) {
        double *seq = malloc((size_t)n * n * sizeof(double));
        int *perm_seq = calloc((size_t)n, sizeof(int));
        if (!seq || !perm_seq)
            bsp_abort("lu: out of memory for the check\n");
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                seq[(size_t)i * n + j] = entry(i, j);
        lu_seq(seq, perm_seq, n);
        double diff = 0.0;
        for (size_t e = 0; e < (size_t)n * n; e++)
            diff = fmax(diff, fabs(seq[e] - all[e]));
        int same_perm = memcmp(perm, perm_seq, (size_t)n * sizeof(int)) == 0;
        /* and the factorisation itself: |PA - LU| */
        double resid = 0.0;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                double lu = 0.0;
                for (int m = 0; m <= (i < j ? i : j); m++)
                    lu += (m == i ? 1.0 : all[(size_t)i * n + m]) * all[(size_t)m * n + j];
                resid = fmax(resid, fabs(entry(perm[i], j) - lu));
            }
        result = same_perm && diff <= 1e-12 && resid <= 1e-10;
        printf("LU of a %dx%d matrix on %u cores\n", n, n, p);
        printf("permutation equal to the sequential one: %s\n", same_perm ? "yes" : "no");
        printf("L and U within 1e-12 of the sequential ones: %s\n", diff <= 1e-12 ? "yes" : "no");
        printf("max |PA - LU| below 1e-10: %s\n", resid <= 1e-10 ? "yes" : "no");
        free(perm_seq);
        free(seq);
    }
    bsp_pop_reg(cand);
    bsp_pop_reg(pivot);
    bsp_pop_reg(a);
    bsp_sync();
    free(all);
    free(perm);
    free(cand);
    free(pivot);
    free(a);
    bsp_end();
}

int main(int argc, char **argv)
{
    bsp_init(bsplu, argc, argv);
    P = argc > 1 ? (bsp_nprocs_t)atoi(argv[1]) : bsp_nprocs();
    N = argc > 2 ? atoi(argv[2]) : 96;
    if (P < 1 || P > bsp_nprocs() || N < 1 || N > 4096) {
        fprintf(stderr, "usage: lu [P (1..%u)] [n (1..4096)]\n", bsp_nprocs());
        return 2;
    }
    bsplu();
    printf("lu: %s\n", result ? "OK" : "FAILED");
    return !result;
}
