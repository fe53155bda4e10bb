/*
 * The QMP benchmark (make bench-qmp): a halo exchange with relative sends
 * in the 8 directions of a 4-d logical topology (2 2 2 2 on 16 nodes),
 * 8 B, 1 KiB and 64 KiB per face, started and waited for as two
 * QMP_declare_multiple handles; then QMP_sum_double and
 * QMP_sum_double_array of 1000. A QMP program like any other: built
 * against our face or against QMP over MPI, it measures either. Against
 * our face it also times our LQCD API's sumDouble (lqcd_msg.h), which
 * QMP_sum_double calls, on the same nodes, in trials alternating with
 * QMP_sum_double's: the yardstick of QMP_sum_double's own cost (a weak
 * symbol: the reference library has none, and the line is left out).
 *
 * Each measurement repeats its operation k times, k doubled until a run
 * takes MIN_SECONDS on the slowest node, then times TRIALS runs; node 0
 * prints "RESULT metric microseconds" (per operation, median of the
 * trials, each trial the slowest node's time).
 */
#include <qmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../shared/timing.h"

/* lqcd_msg.h's, when the library has it. */
extern double sumDouble(double x) __attribute__((weak));

enum { TRIALS = 5, DIRS = 8, LEN = 1000 };
#define MIN_SECONDS 0.05

typedef void (*operation)(void *arg);

/* Seconds of k operations on the slowest node. */
static double timed(operation op, void *arg, int k)
{
    QMP_barrier();
    double t0 = wall();
    for (int i = 0; i < k; i++)
        op(arg);
    double t = wall() - t0;
    QMP_max_double(&t);
    return t;
}

/* Operations per timed run: doubled until one takes MIN_SECONDS. */
static int repeats(operation op, void *arg)
{
    int k = 1;
    while (timed(op, arg, k) < MIN_SECONDS && k < (1 << 24))
        k *= 2;
    return k;
}

static double median(double *t)
{
    qsort(t, TRIALS, sizeof *t, cmp);
    return t[TRIALS / 2];
}

/* Median seconds per operation (see the top). */
static double measure(operation op, void *arg)
{
    int k = repeats(op, arg);
    double t[TRIALS];
    for (int i = 0; i < TRIALS; i++)
        t[i] = timed(op, arg, k) / k;
    return median(t);
}

/* The medians of two operations whose trials alternate, so that both see
 * the same machine (and each k of its own). */
static void measure_pair(operation a, operation b, void *arg, double *ta, double *tb)
{
    int ka = repeats(a, arg), kb = repeats(b, arg);
    double t[2][TRIALS];
    for (int i = 0; i < TRIALS; i++) {
        t[0][i] = timed(a, arg, ka) / ka;
        t[1][i] = timed(b, arg, kb) / kb;
    }
    *ta = median(t[0]);
    *tb = median(t[1]);
}

struct halo {
    QMP_msghandle_t sends, receives;
};

static void exchange(void *arg)
{
    struct halo *h = arg;
    if (QMP_start(h->receives) != QMP_SUCCESS || QMP_start(h->sends) != QMP_SUCCESS ||
        QMP_wait(h->sends) != QMP_SUCCESS || QMP_wait(h->receives) != QMP_SUCCESS)
        QMP_abort_string(1, "qmp_bench: a halo exchange failed");
}

static void sum_double(void *arg)
{
    double x = *(double *)arg;
    QMP_sum_double(&x);
}

static void lqcd_sum_double(void *arg)
{
    volatile double sum = sumDouble(*(double *)arg);
    (void)sum;
}

static void sum_double_array(void *arg)
{
    static double x[LEN];
    memcpy(x, arg, sizeof x);
    QMP_sum_double_array(x, LEN);
}

static void report(const char *metric, double seconds)
{
    if (QMP_is_primary_node())
        printf("RESULT %s %.3f\n", metric, seconds * 1e6);
}

/* Send d goes along axis d/2 towards dir +-1; receive d comes from the
 * opposite side. */
static void halo(int bytes)
{
    char *out = malloc((size_t)DIRS * bytes), *in = malloc((size_t)DIRS * bytes);
    QMP_msgmem_t om[DIRS], im[DIRS];
    QMP_msghandle_t s[DIRS], r[DIRS];
    memset(out, 1, (size_t)DIRS * bytes);
    for (int d = 0; d < DIRS; d++) {
        int axis = d / 2, dir = d % 2 ? -1 : +1;
        om[d] = QMP_declare_msgmem(out + (size_t)d * bytes, bytes);
        im[d] = QMP_declare_msgmem(in + (size_t)d * bytes, bytes);
        s[d] = QMP_declare_send_relative(om[d], axis, dir, 0);
        r[d] = QMP_declare_receive_relative(im[d], axis, -dir, 0);
        if (!s[d] || !r[d])
            QMP_abort_string(1, "qmp_bench: a halo declaration failed");
    }
    struct halo h = {QMP_declare_multiple(s, DIRS), QMP_declare_multiple(r, DIRS)};
    char metric[32];
    snprintf(metric, sizeof metric, "halo_%d", bytes);
    report(metric, measure(exchange, &h));
    QMP_free_msghandle(h.sends);
    QMP_free_msghandle(h.receives);
    for (int d = 0; d < DIRS; d++) {
        QMP_free_msgmem(om[d]);
        QMP_free_msgmem(im[d]);
    }
    free(out);
    free(in);
}

int main(int argc, char **argv)
{
    QMP_thread_level_t provided;
    if (QMP_init_msg_passing(&argc, &argv, QMP_THREAD_SINGLE, &provided) != QMP_SUCCESS)
        return 1;
    int n = QMP_get_number_of_nodes(), dims[4] = {1, 1, 1, 1};
    for (int i = 0, m = n; m > 1; i = (i + 1) % 4, m /= 2)
        dims[i] *= 2;
    if (dims[0] * dims[1] * dims[2] * dims[3] != n || QMP_declare_logical_topology(dims, 4) != QMP_SUCCESS)
        QMP_abort_string(1, "qmp_bench: the number of nodes is not a power of 2");
    if (QMP_is_primary_node())
        printf("RESULT nodes %d\n", n);
    static const int sizes[] = {8, 1024, 65536};
    for (int i = 0; i < 3; i++)
        halo(sizes[i]);
    double x = QMP_get_node_number(), a[LEN];
    for (int i = 0; i < LEN; i++)
        a[i] = x + i;
    if (sumDouble) {
        double qmp, lqcd;
        measure_pair(sum_double, lqcd_sum_double, &x, &qmp, &lqcd);
        report("sum_double", qmp);
        report("lqcd_sumDouble", lqcd);
    } else {
        report("sum_double", measure(sum_double, &x));
    }
    report("sum_double_array_1000", measure(sum_double_array, a));
    QMP_finalize_msg_passing();
    return 0;
}
