/*
 * Messages: relative sends and receives in every direction of a 4-d
 * logical topology (a dimension of 1 sends to the node itself), started as
 * QMP_declare_multiple handles and as single handles ended by QMP_wait_all;
 * send_to / receive_from with a receive buffer larger than the message;
 * QMP_is_complete before and after the matching send; and a receive that
 * is never started, which QMP_wait and QMP_is_complete find complete.
 */
#include "qmptest.h"

enum { DIRS = 8, HALO = 256, ROUNDS = 3, SMALL = 100, LARGE = 256 };

struct halo {
    int node, axis, dir, round;
    char fill[HALO - 4 * sizeof(int)];
};

static struct halo out[DIRS], in[DIRS];
static QMP_msgmem_t out_mem[DIRS], in_mem[DIRS];

static int axis_of(int k) { return k / 2; }
static int dir_of(int k) { return k % 2 ? +1 : -1; }

/* The node at this node's coordinates moved by dir along axis. */
static int neighbour(int axis, int dir)
{
    const int *ld = QMP_get_logical_dimensions();
    int c[4];
    memcpy(c, QMP_get_logical_coordinates(), sizeof c);
    c[axis] = (c[axis] + dir + ld[axis]) % ld[axis];
    return QMP_get_node_number_from(c);
}

/* Send k goes along direction k; receive k takes what the node at -dir
 * sent along direction k. */
static int declare(QMP_msghandle_t send[DIRS], QMP_msghandle_t recv[DIRS])
{
    int bad = 0;
    for (int k = 0; k < DIRS; k++) {
        send[k] = QMP_declare_send_relative(out_mem[k], axis_of(k), dir_of(k), 0);
        recv[k] = QMP_declare_receive_relative(in_mem[k], axis_of(k), -dir_of(k), 0);
        bad += check(send[k] && recv[k], "direction %d: a declaration failed: %s", k, QMP_get_error_string(0));
    }
    return bad;
}

static void fill(int round)
{
    for (int k = 0; k < DIRS; k++) {
        out[k] = (struct halo){QMP_get_node_number(), axis_of(k), dir_of(k), round, {0}};
        memset(out[k].fill, 'a' + k, sizeof out[k].fill);
        memset(&in[k], 0, sizeof in[k]);
    }
}

static int received(int round, const char *how)
{
    int bad = 0;
    for (int k = 0; k < DIRS; k++) {
        struct halo want = {neighbour(axis_of(k), -dir_of(k)), axis_of(k), dir_of(k), round, {0}};
        memset(want.fill, 'a' + k, sizeof want.fill);
        bad += check(memcmp(&in[k], &want, sizeof want) == 0, "%s, round %d, direction %d: from node %d axis %d dir %d round %d, want node %d",
                     how, round, k, in[k].node, in[k].axis, in[k].dir, in[k].round, want.node);
    }
    return bad;
}

static int halo_multiple(void)
{
    QMP_msghandle_t send[DIRS], recv[DIRS];
    int bad = declare(send, recv);
    if (bad)
        return bad;
    QMP_msghandle_t sends = QMP_declare_multiple(send, DIRS), recvs = QMP_declare_multiple(recv, DIRS);
    if (check(sends && recvs, "QMP_declare_multiple failed"))
        return 1;
    for (int round = 0; round < ROUNDS; round++) {
        fill(round);
        bad += check(QMP_start(recvs) == QMP_SUCCESS, "QMP_start(receives)");
        bad += check(QMP_start(sends) == QMP_SUCCESS, "QMP_start(sends)");
        bad += check(QMP_wait(sends) == QMP_SUCCESS, "QMP_wait(sends)");
        bad += check(QMP_wait(recvs) == QMP_SUCCESS, "QMP_wait(receives)");
        bad += received(round, "multiple");
    }
    /* a part started alone: the multiple's start refuses it and starts
       none of the others, which then start alone too */
    fill(ROUNDS);
    bad += check(QMP_start(recv[0]) == QMP_SUCCESS, "QMP_start(receive 0 alone)");
    bad += check(QMP_start(recvs) != QMP_SUCCESS, "QMP_start(receives) with receive 0 started: accepted");
    for (int k = 1; k < DIRS; k++)
        bad += check(QMP_start(recv[k]) == QMP_SUCCESS, "QMP_start(receive %d alone): a part the multiple started", k);
    bad += check(QMP_start(sends) == QMP_SUCCESS, "QMP_start(sends)");
    bad += check(QMP_wait(sends) == QMP_SUCCESS, "QMP_wait(sends)");
    bad += check(QMP_wait(recvs) == QMP_SUCCESS, "QMP_wait(receives started alone)");
    bad += received(ROUNDS, "parts started alone");
    QMP_free_msghandle(sends); /* frees the handles it holds */
    QMP_free_msghandle(recvs);
    return bad;
}

static int halo_wait_all(void)
{
    QMP_msghandle_t h[2 * DIRS];
    int bad = declare(h, h + DIRS);
    if (bad)
        return bad;
    for (int round = 0; round < ROUNDS; round++) {
        fill(10 + round);
        for (int k = 0; k < DIRS; k++)
            bad += check(QMP_start(h[DIRS + k]) == QMP_SUCCESS, "QMP_start(receive %d)", k);
        for (int k = 0; k < DIRS; k++)
            bad += check(QMP_start(h[k]) == QMP_SUCCESS, "QMP_start(send %d)", k);
        bad += check(QMP_wait_all(h, 2 * DIRS) == QMP_SUCCESS, "QMP_wait_all");
        bad += received(10 + round, "wait_all");
    }
    for (int k = 0; k < 2 * DIRS; k++)
        QMP_free_msghandle(h[k]);
    return bad;
}

/* SMALL bytes to node+1 into a LARGE buffer of node-1; QMP_is_complete
 * false while the sender has not started (it starts after the barrier,
 * which this node reaches after the check). */
static int send_to_larger(void)
{
    int n = QMP_get_number_of_nodes(), me = QMP_get_node_number(), from = (me + n - 1) % n;
    char small[SMALL], large[LARGE];
    memset(small, 'A' + me % 26, sizeof small);
    memset(large, '.', sizeof large);
    QMP_msgmem_t sm = QMP_declare_msgmem(small, sizeof small), lm = QMP_declare_msgmem(large, sizeof large);
    QMP_msghandle_t r = QMP_declare_receive_from(lm, from, 0), s = QMP_declare_send_to(sm, (me + 1) % n, 0);
    if (check(r && s, "send_to / receive_from: a declaration failed: %s", QMP_get_error_string(0)))
        return 1;
    int bad = check(QMP_start(r) == QMP_SUCCESS, "QMP_start(receive_from)");
    bad += check(!QMP_is_complete(r), "QMP_is_complete is true before the send started");
    QMP_barrier();
    if (check(QMP_start(s) == QMP_SUCCESS, "QMP_start(send_to): %s", QMP_get_error_string(s)))
        return bad + 1; /* nothing to wait for: the receive never ends */
    while (!(QMP_is_complete(r) & QMP_is_complete(s)))
        ;
    for (int i = 0; i < LARGE; i++) {
        char want = i < SMALL ? 'A' + from % 26 : '.';
        bad += check(large[i] == want, "larger receive buffer: byte %d is %c, want %c", i, large[i], want);
    }
    say("send_to: %.4s from node %d, then %.4s", large, from, large + SMALL);
    QMP_free_msghandle(r);
    QMP_free_msghandle(s);
    QMP_free_msgmem(sm);
    QMP_free_msgmem(lm);
    return bad;
}

/* A receive declared and never started: complete, and waiting ends at once. */
static int never_started(void)
{
    char buf[8];
    QMP_msgmem_t m = QMP_declare_msgmem(buf, sizeof buf);
    QMP_msghandle_t r = QMP_declare_receive_from(m, 0, 0);
    if (check(r != NULL, "receive_from node 0: %s", QMP_get_error_string(0)))
        return 1;
    int bad = check(QMP_is_complete(r), "QMP_is_complete is false for a receive never started");
    QMP_status_t s = QMP_wait(r);
    bad += check(s == QMP_SUCCESS, "QMP_wait of a receive never started: %s", status_name(s));
    QMP_free_msghandle(r);
    QMP_free_msgmem(m);
    return bad;
}

int main(int argc, char **argv)
{
    start(&argc, &argv);
    int dims[4];
    if (!grid_dims(QMP_get_number_of_nodes(), dims) || QMP_declare_logical_topology(dims, 4) != QMP_SUCCESS) {
        check(0, "no logical topology for %d nodes", QMP_get_number_of_nodes());
        return finish(1);
    }
    for (int k = 0; k < DIRS; k++) {
        out_mem[k] = QMP_declare_msgmem(&out[k], sizeof out[k]);
        in_mem[k] = QMP_declare_msgmem(&in[k], sizeof in[k]);
    }
    int bad = halo_multiple();
    bad += halo_wait_all();
    for (int k = 0; k < DIRS; k++)
        say("direction %d (axis %d, %+d): from node %d", k, axis_of(k), dir_of(k), in[k].node);
    bad += send_to_larger();
    bad += never_started();
    for (int k = 0; k < DIRS; k++) {
        QMP_free_msgmem(out_mem[k]);
        QMP_free_msgmem(in_mem[k]);
    }
    return finish(bad);
}
