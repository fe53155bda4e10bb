/*
 * Misuse answered by a status (or a NULL handle) and a message, never a
 * crash: the program runs the case named by its argument on every node and
 * prints "<case>: refused" when the call failed and said why (its status
 * and message go to stderr), "<case>: ACCEPTED" (a failed check) when it
 * did not.
 *
 * QMP 2.5.4 over Open MPI answers most of these with QMP_assert, which
 * aborts the job (status 1): the issue asks for a status, as this program
 * does. What the reference does with each case is in ctests/qmp/README.md.
 */
#include "qmptest.h"

/* A status answer: not QMP_SUCCESS, with a message. */
static int refused_status(const char *name, QMP_status_t s)
{
    const char *why = QMP_error_string(s);
    fprintf(stderr, "n%02d %s: %s: %s\n", QMP_get_node_number(), name, status_name(s), why ? why : "(NULL)");
    int ok = s != QMP_SUCCESS && why && *why;
    say("%s: %s", name, ok ? "refused" : "ACCEPTED");
    return !ok;
}

/* A handle answer: NULL, with a message from QMP_get_error_string(0). */
static int refused_handle(const char *name, const void *h)
{
    const char *why = QMP_get_error_string(NULL);
    fprintf(stderr, "n%02d %s: %s: %s\n", QMP_get_node_number(), name, h ? "a handle" : "NULL", why ? why : "(NULL)");
    int ok = !h && why && *why;
    say("%s: %s", name, ok ? "refused" : "ACCEPTED");
    return !ok;
}

static QMP_msgmem_t small_mem(void)
{
    static char buf[64];
    return QMP_declare_msgmem(buf, sizeof buf);
}

/* A topology of all the nodes in one dimension. */
static void line_topology(void)
{
    int dims[1] = {QMP_get_number_of_nodes()};
    QMP_declare_logical_topology(dims, 1);
}

/* 64 bytes from node-1 into a 32-byte receive: a size that does not match. */
static int size_mismatch(void)
{
    int n = QMP_get_number_of_nodes(), me = QMP_get_node_number();
    char out[64] = {0}, in[32];
    QMP_msgmem_t om = QMP_declare_msgmem(out, sizeof out), im = QMP_declare_msgmem(in, sizeof in);
    QMP_msghandle_t s = QMP_declare_send_to(om, (me + 1) % n, 0), r = QMP_declare_receive_from(im, (me + n - 1) % n, 0);
    QMP_start(r);
    QMP_start(s);
    QMP_status_t ws = QMP_wait(s), wr = QMP_wait(r);
    return refused_status("size_mismatch", wr != QMP_SUCCESS ? wr : ws);
}

/* A NULL communicator (after a split, so there is more than one). */
static int comm_null(void)
{
    QMP_comm_t half;
    QMP_comm_split(QMP_comm_get_default(), QMP_get_node_number() % 2, 0, &half);
    int v = 1;
    QMP_status_t s = QMP_comm_sum_int(NULL, &v);
    return refused_status("comm_null", s);
}

static int run(const char *name)
{
    int n = QMP_get_number_of_nodes();
    if (!strcmp(name, "start_null"))
        return refused_status(name, QMP_start(NULL));
    if (!strcmp(name, "wait_null"))
        return refused_status(name, QMP_wait(NULL));
    if (!strcmp(name, "msgmem_null"))
        return refused_handle(name, QMP_declare_send_to(NULL, 0, 0));
    if (!strcmp(name, "multiple_null"))
        return refused_handle(name, QMP_declare_multiple(NULL, 2));
    if (!strcmp(name, "relative_no_topology"))
        return refused_handle(name, QMP_declare_send_relative(small_mem(), 0, 1, 0));
    if (!strcmp(name, "relative_bad_axis")) {
        line_topology();
        return refused_handle(name, QMP_declare_receive_relative(small_mem(), 4, 1, 0));
    }
    if (!strcmp(name, "send_to_no_node"))
        return refused_handle(name, QMP_declare_send_to(small_mem(), n + 3, 0));
    if (!strcmp(name, "topology_twice")) {
        line_topology();
        int dims[2] = {1, n};
        return refused_status(name, QMP_declare_logical_topology(dims, 2));
    }
    if (!strcmp(name, "topology_wrong_size")) {
        int dims[1] = {n + 1};
        return refused_status(name, QMP_declare_logical_topology(dims, 1));
    }
    if (!strcmp(name, "size_mismatch"))
        return size_mismatch();
    if (!strcmp(name, "comm_null"))
        return comm_null();
    if (!strcmp(name, "sum_array_negative")) {
        double d[1] = {1};
        return refused_status(name, QMP_sum_double_array(d, -1));
    }
    check(0, "no case %s", name);
    return 1;
}

int main(int argc, char **argv)
{
    start(&argc, &argv);
    if (argc != 2) {
        check(0, "usage: %s case", argv[0]);
        return finish(1);
    }
    return finish(run(argv[1]));
}
