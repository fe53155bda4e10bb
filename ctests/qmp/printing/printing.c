/*
 * Printing: every node prints LINES lines with QMP_printf and a few with
 * QMP_info and QMP_fprintf(stderr), each line long, all at once, with no
 * barrier between them. Whatever prefix the implementation puts before a
 * line, each must hold one node's whole text: "qmp-line node NN line LLL"
 * and a payload that only that node and line produce. ctests/qmp_test.go
 * checks that every line appears once, whole, and in order per node.
 */
#include "qmptest.h"

enum { LINES = 50, PAYLOAD = 300 };

/* Letters that depend on the node and the line: a mixed line shows. */
static void payload(char *p, int node, int line)
{
    for (int i = 0; i < PAYLOAD; i++)
        p[i] = (char)('a' + (node * 7 + line * 3 + i) % 26);
    p[PAYLOAD] = 0;
}

int main(int argc, char **argv)
{
    start(&argc, &argv);
    int me = QMP_get_node_number();
    char p[PAYLOAD + 1];
    QMP_barrier();
    for (int line = 0; line < LINES; line++) {
        payload(p, me, line);
        QMP_printf("qmp-line node %02d line %03d %s", me, line, p);
    }
    payload(p, me, LINES);
    QMP_info("qmp-line node %02d line %03d %s", me, LINES, p);
    QMP_fprintf(stderr, "qmp-stderr node %02d", me);
    fflush(stdout);
    QMP_barrier();
    return finish(0);
}
