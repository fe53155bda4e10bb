/*
 * Collectives on the default communicator: barrier, broadcast from node 0,
 * the sums (int, uint64_t, float, double, long double, double extended,
 * and the float, double and long double arrays), max and min, xor. The
 * values are chosen so that every sum is exact in any order: the bits of
 * inexact sums are the program "sums"' business.
 */
#include "qmptest.h"
#include <stdint.h>

enum { LEN = 7, BCAST = 1000 };

static int broadcast(int me)
{
    unsigned char buf[BCAST];
    for (int i = 0; i < BCAST; i++)
        buf[i] = me == 0 ? (unsigned char)(i * 7 + 3) : 0;
    int bad = check(QMP_broadcast(buf, sizeof buf) == QMP_SUCCESS, "QMP_broadcast");
    for (int i = 0; i < BCAST; i++)
        bad += check(buf[i] == (unsigned char)(i * 7 + 3), "broadcast byte %d is %d", i, buf[i]);
    return bad;
}

static int scalar_sums(int me, int n)
{
    int i = me + 1;
    uint64_t u = ((uint64_t)1 << 40) + (uint64_t)me;
    float f = 0.25f * (float)me;
    double d = 0.5 * me, x = 1.0 / 1024 * me;
    long double l = 0.125L * me;
    int bad = check(QMP_sum_int(&i) == QMP_SUCCESS, "QMP_sum_int");
    bad += check(QMP_sum_uint64_t(&u) == QMP_SUCCESS, "QMP_sum_uint64_t");
    bad += check(QMP_sum_float(&f) == QMP_SUCCESS, "QMP_sum_float");
    bad += check(QMP_sum_double(&d) == QMP_SUCCESS, "QMP_sum_double");
    bad += check(QMP_sum_double_extended(&x) == QMP_SUCCESS, "QMP_sum_double_extended");
    bad += check(QMP_sum_long_double(&l) == QMP_SUCCESS, "QMP_sum_long_double");
    int t = n * (n - 1) / 2; /* 0 + 1 + ... + n-1 */
    bad += check(i == t + n, "sum_int %d", i);
    bad += check(u == ((uint64_t)n << 40) + (uint64_t)t, "sum_uint64_t %llu", (unsigned long long)u);
    bad += check(f == 0.25f * (float)t && d == 0.5 * t && x == 1.0 / 1024 * t && l == 0.125L * t, "float sums");
    say("sums int %d uint64 %llu float %g double %g extended %g long double %Lg", i, (unsigned long long)u, f, d, x, l);
    return bad;
}

static int array_sums(int me, int n)
{
    float f[LEN];
    double d[LEN];
    long double l[LEN];
    for (int k = 0; k < LEN; k++) {
        f[k] = (float)(k * me);
        d[k] = k - me * 0.5;
        l[k] = k * 0.25L + me;
    }
    int bad = check(QMP_sum_float_array(f, LEN) == QMP_SUCCESS, "QMP_sum_float_array");
    bad += check(QMP_sum_double_array(d, LEN) == QMP_SUCCESS, "QMP_sum_double_array");
    bad += check(QMP_sum_long_double_array(l, LEN) == QMP_SUCCESS, "QMP_sum_long_double_array");
    int t = n * (n - 1) / 2;
    for (int k = 0; k < LEN; k++) {
        bad += check(f[k] == (float)(k * t) && d[k] == k * n - t * 0.5, "array sums, element %d: %g %g", k, f[k], d[k]);
        /* QMP 2.5.4 over MPI adds these as MPI_DOUBLEs: garbage */
        bad += check(l[k] == k * 0.25L * n + t, "long double array sum, element %d: %Lg", k, l[k]);
    }
    say("array sums [%d] float %g double %g long double %Lg", LEN - 1, f[LEN - 1], d[LEN - 1], l[LEN - 1]);
    return bad;
}

static int extremes_and_xor(int me, int n)
{
    /* a value peaking at node n/2 and lowest at node 0 */
    float fmax = (float)(me * (n - me)), fmin = fmax;
    double dmax = 1 - 1.5 * me, dmin = dmax;
    unsigned long x = 1UL << (me % 64) | 1UL << 63;
    int bad = check(QMP_max_float(&fmax) == QMP_SUCCESS && QMP_min_float(&fmin) == QMP_SUCCESS, "max/min float");
    bad += check(QMP_max_double(&dmax) == QMP_SUCCESS && QMP_min_double(&dmin) == QMP_SUCCESS, "max/min double");
    bad += check(QMP_xor_ulong(&x) == QMP_SUCCESS, "QMP_xor_ulong");
    bad += check(fmax == (float)(n / 2 * (n - n / 2)) && fmin == 0, "max/min float %g %g", fmax, fmin);
    bad += check(dmax == 1 && dmin == 1 - 1.5 * (n - 1), "max/min double %g %g", dmax, dmin);
    unsigned long want = n % 2 ? 1UL << 63 : 0;
    for (int k = 0; k < n; k++)
        want ^= 1UL << (k % 64);
    bad += check(x == want, "xor %#lx, want %#lx", x, want);
    say("max float %g min float %g max double %g min double %g xor %#lx", fmax, fmin, dmax, dmin, x);
    return bad;
}

int main(int argc, char **argv)
{
    start(&argc, &argv);
    int me = QMP_get_node_number(), n = QMP_get_number_of_nodes();
    int bad = check(QMP_barrier() == QMP_SUCCESS, "QMP_barrier");
    bad += broadcast(me);
    bad += scalar_sums(me, n);
    bad += array_sums(me, n);
    bad += extremes_and_xor(me, n);
    bad += check(QMP_barrier() == QMP_SUCCESS, "QMP_barrier");
    return finish(bad);
}
