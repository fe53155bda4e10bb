/*
 * QMP_binary_reduction applies the user's function to whole buffers: a
 * buffer framed by two magic words, which the function checks on both of
 * its arguments (a function handed pieces of buffers sees torn frames),
 * merging counts, maxima and the set of nodes. Then an order-dependent
 * function (inout[i] += 2 * in[i], QMP's own example's): its result is
 * printed as "bits" lines, the same on every node, and in every layout
 * when the nodes are combined in a fixed order.
 *
 * QMP 2.5.4 over Open MPI segfaults here at 16 ranks: MPI hands the
 * function pieces of the buffer (MPI_BYTE reductions split for the ring
 * algorithm). At 1, 2 and 4 ranks it passes.
 */
#include "qmptest.h"

enum { VALUES = 10, MAGIC = 0x51a7e };

struct block {
    int begin;
    int count, torn;
    double max[VALUES];
    unsigned long nodes;
    int end;
};

static int whole(const struct block *b) { return b->begin == MAGIC && b->end == MAGIC; }

static void merge(void *inout, void *in)
{
    struct block *a = inout;
    const struct block *b = in;
    if (!whole(a) || !whole(b)) {
        a->torn = 1;
        return;
    }
    a->count += b->count;
    a->torn |= b->torn;
    a->nodes |= b->nodes;
    for (int i = 0; i < VALUES; i++)
        if (b->max[i] > a->max[i])
            a->max[i] = b->max[i];
}

static void weigh(void *inout, void *in)
{
    float *a = inout;
    const float *b = in;
    for (int i = 0; i < VALUES; i++)
        a[i] += 2 * b[i];
}

int main(int argc, char **argv)
{
    start(&argc, &argv);
    int me = QMP_get_node_number(), n = QMP_get_number_of_nodes();
    struct block b = {MAGIC, 1, 0, {0}, 1UL << (me % 64), MAGIC};
    for (int i = 0; i < VALUES; i++)
        b.max[i] = (me * 7 + i * 3) % n + 0.5 * i;
    int bad = check(QMP_binary_reduction(&b, sizeof b, merge) == QMP_SUCCESS, "QMP_binary_reduction(merge)");
    bad += check(whole(&b) && !b.torn, "the function saw a piece of a buffer");
    bad += check(b.count == n, "%d buffers merged, want %d", b.count, n);
    for (int i = 0; i < VALUES; i++)
        bad += check(b.max[i] == n - 1 + 0.5 * i, "max[%d] = %g", i, b.max[i]);
    say("merged %d buffers, nodes %#lx, torn %d, max[9] %g", b.count, b.nodes, b.torn, b.max[VALUES - 1]);

    float v[VALUES], first[VALUES];
    for (int i = 0; i < VALUES; i++)
        v[i] = (float)i - (float)me;
    bad += check(QMP_binary_reduction(v, sizeof v, weigh) == QMP_SUCCESS, "QMP_binary_reduction(weigh)");
    memcpy(first, v, sizeof v);
    bad += check(QMP_broadcast(first, sizeof first) == QMP_SUCCESS, "QMP_broadcast");
    bad += check(memcmp(first, v, sizeof v) == 0, "the order-dependent reduction differs from node 0's");
    say("bits weigh %a %a %a", v[0], v[1], v[VALUES - 1]);
    return finish(bad);
}
