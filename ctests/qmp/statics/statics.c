/*
 * Per-node globals: a QMP program written for one MPI rank per node keeps
 * its options, buffers, handles and counters in file-scope statics. Each
 * node writes its own values into them, and after every barrier and every
 * message it must still find its own: with 16 nodes in one process, a
 * face whose nodes share these variables fails here.
 *
 * Argument (file "args"): -steps S, a program option kept in a static.
 */
#include "qmptest.h"

enum { WORDS = 128 };

static int steps = 1;       /* option -steps */
static int my_node = -1;    /* this node's number, set once */
static int counter;         /* incremented once per step */
static int send_buf[WORDS], recv_buf[WORDS];
static QMP_msgmem_t send_mem, recv_mem;
static QMP_msghandle_t send_h, recv_h;
static const char *program; /* argv[0] */

static void options(int argc, char **argv)
{
    program = argv[0];
    for (int i = 1; i + 1 < argc; i++)
        if (strcmp(argv[i], "-steps") == 0)
            steps = atoi(argv[i + 1]);
}

static void declare(void)
{
    int n = QMP_get_number_of_nodes();
    send_mem = QMP_declare_msgmem(send_buf, sizeof send_buf);
    recv_mem = QMP_declare_msgmem(recv_buf, sizeof recv_buf);
    send_h = QMP_declare_send_to(send_mem, (my_node + 1) % n, 0);
    recv_h = QMP_declare_receive_from(recv_mem, (my_node + n - 1) % n, 0);
}

/* This node's statics hold this node's values. */
static int mine(int step, const char *when)
{
    int bad = check(my_node == QMP_get_node_number(), "%s: my_node %d", when, my_node);
    bad += check(counter == step, "%s: counter %d, want %d", when, counter, step);
    for (int i = 0; i < WORDS; i++)
        bad += check(send_buf[i] == my_node * 100000 + step * 1000 + i, "%s: send_buf[%d] = %d", when, i, send_buf[i]);
    return bad;
}

int main(int argc, char **argv)
{
    start(&argc, &argv);
    options(argc, argv);
    my_node = QMP_get_node_number();
    declare();
    int bad = check(send_h && recv_h, "declarations: %s", QMP_get_error_string(0));
    if (bad)
        return finish(bad);
    int n = QMP_get_number_of_nodes(), from = (my_node + n - 1) % n;
    for (int step = 1; step <= steps; step++) {
        counter++;
        for (int i = 0; i < WORDS; i++)
            send_buf[i] = my_node * 100000 + step * 1000 + i;
        QMP_barrier();
        bad += mine(step, "after a barrier");
        QMP_start(recv_h);
        QMP_start(send_h);
        QMP_wait(send_h);
        QMP_wait(recv_h);
        bad += mine(step, "after a message");
        for (int i = 0; i < WORDS; i++)
            bad += check(recv_buf[i] == from * 100000 + step * 1000 + i, "step %d: recv_buf[%d] = %d", step, i, recv_buf[i]);
    }
    say("steps %d counter %d received %d from node %d, program %s", steps, counter, recv_buf[1], from,
        strrchr(program, '/') ? strrchr(program, '/') + 1 : program);
    QMP_free_msghandle(send_h);
    QMP_free_msghandle(recv_h);
    QMP_free_msgmem(send_mem);
    QMP_free_msgmem(recv_mem);
    return finish(bad);
}
