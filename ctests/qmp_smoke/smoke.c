/*
 * QMP smoke test: every node runs main with globals of its own; -qmp-geom
 * is taken out of argv; a halo exchange in 2 dimensions (into a receive
 * larger than the message); a sum with the same bits on every node; a
 * broadcast, a split communicator and its sum; QMP_binary_reduction on
 * whole buffers; misuse answered with a status and a message. Node 0
 * prints the outcome, the same in every layout.
 */
#include <qmp.h>

#include <stdio.h>
#include <string.h>

static int runs_of_main; /* each node's own: 1 everywhere */
static int token = 100;  /* a node's changes are its own */
static __thread int per_thread = 7;

/* inout = inout * 3 + in, element by element: the order of the nodes shows */
static void fold(void *inout, void *in)
{
    int *a = inout;
    const int *b = in;
    for (int i = 0; i < 4; i++)
        a[i] = a[i] * 3 + b[i];
}

static int check(QMP_status_t st, QMP_status_t want, const char *what)
{
    if (st == want)
        return 1;
    printf("node %d: %s: status %d, want %d (%s)\n", QMP_get_node_number(), what, st, want, QMP_error_string(st));
    return 0;
}

int main(int argc, char **argv)
{
    runs_of_main++;
    QMP_thread_level_t got;
    if (QMP_init_msg_passing(&argc, &argv, QMP_THREAD_SINGLE, &got) != QMP_SUCCESS)
        return 1;
    int me = QMP_get_node_number(), nodes = QMP_get_number_of_nodes();
    token += me;
    per_thread += me;
    int ok = argc == 2 && strcmp(argv[1], "last") == 0 && argv[2] == NULL;
    const int *alloc = QMP_get_allocated_dimensions();
    ok &= QMP_get_allocated_number_of_dimensions() == 2 && alloc && alloc[0] * alloc[1] == nodes;

    /* the logical grid; declaring it again is refused */
    int dims[2] = {4, nodes / 4};
    ok &= check(QMP_declare_logical_topology(dims, 2), QMP_SUCCESS, "topology");
    ok &= check(QMP_declare_logical_topology(dims, 2), QMP_TOPOLOGY_EXISTS, "topology again");

    /* from +x and +y into receives of 16 bytes, messages of 8 */
    double out = me, in[2][2] = {{-1, -1}, {-1, -1}};
    QMP_msgmem_t mo = QMP_declare_msgmem(&out, sizeof out);
    QMP_msgmem_t mi[2] = {QMP_declare_msgmem(in[0], sizeof in[0]), QMP_declare_msgmem(in[1], sizeof in[1])};
    QMP_msghandle_t h[4];
    for (int axis = 0; axis < 2; axis++) {
        h[2 * axis] = QMP_declare_receive_relative(mi[axis], axis, +1, 0);
        h[2 * axis + 1] = QMP_declare_send_relative(mo, axis, -1, 0);
    }
    QMP_msghandle_t all = QMP_declare_multiple(h, 4);
    ok &= check(QMP_start(all), QMP_SUCCESS, "start") && check(QMP_wait(all), QMP_SUCCESS, "wait");
    const int *c = QMP_get_logical_coordinates();
    for (int axis = 0; axis < 2; axis++) {
        int n[2] = {c[0], c[1]};
        n[axis]++;
        ok &= in[axis][0] == QMP_get_node_number_from(n) && in[axis][1] == -1;
    }
    QMP_free_msghandle(all);
    QMP_free_msgmem(mi[0]);
    QMP_free_msgmem(mi[1]);

    /* 1/(node+1) summed: printed in hex, the same bits everywhere */
    double sum = 1.0 / (me + 1);
    ok &= check(QMP_sum_double(&sum), QMP_SUCCESS, "sum");
    char word[16] = "";
    if (me == 0)
        strcpy(word, "broadcast");
    ok &= check(QMP_broadcast(word, sizeof word), QMP_SUCCESS, "broadcast") && strcmp(word, "broadcast") == 0;

    /* even and odd nodes: a communicator each, numbered by key (reversed) */
    QMP_comm_t half;
    ok &= check(QMP_comm_split(QMP_comm_get_default(), me % 2, -me, &half), QMP_SUCCESS, "split");
    int one = me, size = QMP_comm_get_number_of_nodes(half);
    ok &= check(QMP_comm_sum_int(half, &one), QMP_SUCCESS, "half sum");
    ok &= size == nodes / 2 && QMP_comm_get_node_number(half) == (nodes - 1 - me) / 2;

    ok &= check(QMP_comm_free(half), QMP_SUCCESS, "comm free");
    ok &= check(QMP_comm_free(QMP_comm_get_default()), QMP_INVALID_ARG, "free the default communicator");

    int v[4] = {me, 1, me % 3, 2};
    ok &= check(QMP_binary_reduction(v, sizeof v, fold), QMP_SUCCESS, "binary reduction");

    /* misuse: a status and a message, nothing stops */
    ok &= check(QMP_start(NULL), QMP_INVALID_ARG, "start NULL");
    ok &= strstr(QMP_error_string(QMP_INVALID_ARG), "not a message handle") != NULL;
    ok &= QMP_declare_send_to(NULL, 0, 0) == NULL;
    ok &= QMP_declare_send_to(mo, nodes, 0) == NULL && QMP_get_error_number(NULL) == QMP_NODE_OUTRANGE;
    ok &= check(QMP_comm_barrier((QMP_comm_t)&token), QMP_INVALID_ARG, "barrier of no communicator");

    int want_half = 0;
    for (int q = me % 2; q < nodes; q += 2)
        want_half += q;
    ok &= runs_of_main == 1 && token - me == 100 && per_thread - me == 7 && one == want_half;
    if (!ok)
        printf("node %d: FAILED: main ran %d times, token %d, tls %d, half-sum %d (want %d)\n", me, runs_of_main,
               token - me, per_thread - me, one, want_half);
    /* one line, from node 0: under mpirun the ranks' lines may mix */
    int failed = !ok;
    QMP_sum_int(&failed);
    if (me == 0)
        printf("%d nodes, %d failed: sum %a fold %d %d %d %d version %d\n", nodes, failed, sum, v[0], v[1], v[2], v[3],
               QMP_version_int());
    QMP_free_msgmem(mo);
    QMP_finalize_msg_passing();
    return 0;
}
