/*
 * Sums whose bits depend on the order of the additions: node 0 prints them
 * in hex ("bits" lines), beside the left fold in node order that it
 * computes itself ((x0 + x1) + x2 ...), so that ctests/qmp_test.go can
 * compare the bits across layouts (1 x 16, 2 x 8, 4 x 4, 16 x 1) and with
 * the fold. Every node must get node 0's bits.
 */
#include "qmptest.h"
#include <stdint.h>

enum { LEN = 1000 };

/* A value whose sum over the nodes depends on the order of the additions. */
static double value(int node, int i)
{
    double scale = (node + i) % 3 == 0 ? 1e16 : 1.0;
    double sign = (node * 7 + i) % 5 < 2 ? -1.0 : 1.0;
    return sign * scale * (1.0 + (node * 31 + i * 17) % 97 / 13.0);
}

/* 64-bit FNV-1a of the bytes of x: one line for a whole array. */
static uint64_t digest(const void *x, size_t n)
{
    uint64_t h = 14695981039346656037ULL;
    for (size_t i = 0; i < n; i++)
        h = (h ^ ((const unsigned char *)x)[i]) * 1099511628211ULL;
    return h;
}

/* 1 when every node has node 0's bytes. */
static int same_everywhere(const void *x, size_t n)
{
    uint64_t mine = digest(x, n), first = mine;
    QMP_broadcast(&first, sizeof first);
    int differs = mine != first;
    QMP_sum_int(&differs);
    return differs == 0;
}

int main(int argc, char **argv)
{
    start(&argc, &argv);
    int me = QMP_get_node_number(), n = QMP_get_number_of_nodes(), bad = 0;
    static double d[LEN], fold_d[LEN];
    double x = value(me, 0), fold_x = value(0, 0), e = value(me, 1);
    float f = (float)value(me, 2), fold_f = (float)value(0, 2);
    for (int i = 0; i < LEN; i++) {
        d[i] = value(me, i);
        fold_d[i] = value(0, i);
    }
    for (int k = 1; k < n; k++) {
        fold_x += value(k, 0);
        fold_f += (float)value(k, 2);
        for (int i = 0; i < LEN; i++)
            fold_d[i] += value(k, i);
    }
    bad += check(QMP_sum_double(&x) == QMP_SUCCESS, "QMP_sum_double");
    bad += check(QMP_sum_double_extended(&e) == QMP_SUCCESS, "QMP_sum_double_extended");
    bad += check(QMP_sum_float(&f) == QMP_SUCCESS, "QMP_sum_float");
    bad += check(QMP_sum_double_array(d, LEN) == QMP_SUCCESS, "QMP_sum_double_array");
    bad += check(same_everywhere(&x, sizeof x), "sum_double differs between nodes");
    bad += check(same_everywhere(&e, sizeof e), "sum_double_extended differs between nodes");
    bad += check(same_everywhere(&f, sizeof f), "sum_float differs between nodes");
    bad += check(same_everywhere(d, sizeof d), "sum_double_array differs between nodes");
    if (me == 0) {
        say("bits sum_double %a fold %a", x, fold_x);
        say("bits sum_float %a fold %a", f, fold_f);
        say("bits sum_double_extended %a", e);
        say("bits sum_double_array[1000] %016llx fold %016llx", (unsigned long long)digest(d, sizeof d),
            (unsigned long long)digest(fold_d, sizeof fold_d));
        say("bits sum_double_array[0..2] %a %a %a", d[0], d[1], d[2]);
    }
    return finish(bad);
}
