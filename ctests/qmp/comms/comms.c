/*
 * Communicators: the default, job and allocated ones; QMP_comm_split by
 * parity with the keys reversed; in the halves, the QMP_comm_* forms of
 * the node numbers, barrier, broadcast, sums, a logical topology and
 * relative messages around it; QMP_comm_set_default switching what the
 * plain calls see; QMP_comm_free. (A wrong communicator: the errors program.)
 */
#include "qmptest.h"

/* Messages along the 1-d topology of the half: a ring of half-node numbers. */
static int ring(QMP_comm_t half, int size, int rank)
{
    int dims[1] = {size}, got = -1;
    if (check(QMP_comm_declare_logical_topology(half, dims, 1) == QMP_SUCCESS, "QMP_comm_declare_logical_topology"))
        return 1;
    int bad = check(QMP_comm_logical_topology_is_declared(half), "the half's topology is not declared");
    bad += check(!QMP_logical_topology_is_declared(), "a topology of the half is declared on the default communicator");
    bad += check(QMP_comm_get_logical_coordinates(half)[0] == rank, "coordinate %d in the half, want %d",
                 QMP_comm_get_logical_coordinates(half)[0], rank);
    QMP_msgmem_t sm = QMP_declare_msgmem(&rank, sizeof rank), rm = QMP_declare_msgmem(&got, sizeof got);
    QMP_msghandle_t s = QMP_comm_declare_send_relative(half, sm, 0, +1, 0);
    QMP_msghandle_t r = QMP_comm_declare_receive_relative(half, rm, 0, -1, 0);
    if (check(s && r, "relative handles in the half: %s", QMP_get_error_string(0)))
        return bad + 1;
    bad += check(QMP_start(r) == QMP_SUCCESS && QMP_start(s) == QMP_SUCCESS, "QMP_start in the half");
    bad += check(QMP_wait(s) == QMP_SUCCESS && QMP_wait(r) == QMP_SUCCESS, "QMP_wait in the half");
    bad += check(got == (rank + size - 1) % size, "received %d from the half's previous node", got);
    QMP_free_msghandle(s);
    QMP_free_msghandle(r);
    QMP_free_msgmem(sm);
    QMP_free_msgmem(rm);
    return bad;
}

static int half(QMP_comm_t half, int me, int n)
{
    int color = me % 2, size = (n - color + 1) / 2, rank = size - 1 - me / 2;
    int bad = check(QMP_comm_get_number_of_nodes(half) == size, "half of %d nodes, want %d",
                    QMP_comm_get_number_of_nodes(half), size);
    bad += check(QMP_comm_get_node_number(half) == rank, "node %d in the half, want %d (keys reversed)",
                 QMP_comm_get_node_number(half), rank);
    bad += check(QMP_comm_get_color(half) == color && QMP_comm_get_key(half) == -me, "color %d key %d",
                 QMP_comm_get_color(half), QMP_comm_get_key(half));
    bad += check(QMP_comm_get_number_of_colors(half) == (n > 1 ? 2 : 1), "%d colors", QMP_comm_get_number_of_colors(half));
    bad += check(QMP_comm_is_primary_node(half) == (rank == 0), "QMP_comm_is_primary_node");
    bad += check(QMP_comm_barrier(half) == QMP_SUCCESS, "QMP_comm_barrier");
    int sum = me, top = me;
    bad += check(QMP_comm_sum_int(half, &sum) == QMP_SUCCESS, "QMP_comm_sum_int");
    bad += check(QMP_comm_broadcast(half, &top, sizeof top) == QMP_SUCCESS, "QMP_comm_broadcast");
    double d = me;
    bad += check(QMP_comm_max_double(half, &d) == QMP_SUCCESS && d == top, "QMP_comm_max_double %g", d);
    say("half %d: node %d of %d, sum of world numbers %d, its node 0 is world node %d", color, rank, size, sum, top);
    bad += ring(half, size, rank);
    return bad;
}

int main(int argc, char **argv)
{
    start(&argc, &argv);
    int me = QMP_get_node_number(), n = QMP_get_number_of_nodes();
    QMP_comm_t world = QMP_comm_get_default(), split = NULL;
    int bad = check(world && QMP_comm_get_job() && QMP_comm_get_allocated(), "a predefined communicator is NULL");
    bad += check(QMP_comm_get_number_of_nodes(world) == n && QMP_comm_get_node_number(world) == me,
                 "the default communicator's numbers differ from the plain calls'");
    if (check(QMP_comm_split(world, me % 2, -me, &split) == QMP_SUCCESS && split, "QMP_comm_split"))
        return finish(bad + 1);
    bad += half(split, me, n);

    bad += check(QMP_comm_set_default(split) == QMP_SUCCESS, "QMP_comm_set_default(half)");
    bad += check(QMP_get_number_of_nodes() == QMP_comm_get_number_of_nodes(split), "after set_default: %d nodes",
                 QMP_get_number_of_nodes());
    bad += check(QMP_get_node_number() == QMP_comm_get_node_number(split), "after set_default: node %d",
                 QMP_get_node_number());
    int one = 1;
    bad += check(QMP_sum_int(&one) == QMP_SUCCESS && one == QMP_comm_get_number_of_nodes(split), "QMP_sum_int over the half: %d", one);
    bad += check(QMP_comm_set_default(world) == QMP_SUCCESS, "QMP_comm_set_default(world)");
    bad += check(QMP_get_number_of_nodes() == n, "the default is the world again");
    bad += check(QMP_comm_free(split) == QMP_SUCCESS, "QMP_comm_free");
    return finish(bad);
}
