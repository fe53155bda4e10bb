/*
 * Message handles declared and freed in a loop (ctests/qmp_free_test.go):
 * each node sends its iteration number round a ring of the nodes, on
 * handles and message memory declared for that one message and freed
 * after it, ROUNDS times. The process's resident memory must stay bounded
 * once the loop is under way: freed handles give their channels back.
 * Node 0 prints "grew N KiB" (from round WARM to the end) and the program
 * fails when it grew by more than LIMIT_KIB. 100,000 rounds also wrap the
 * face's channel names several times over (a name is reused once its
 * channel is freed).
 */
#include <qmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
enum { ROUNDS = 100000, WARM = 10000, LIMIT_KIB = 1 << 30 }; /* AddressSanitizer keeps freed memory (quarantine) */
#else
enum { ROUNDS = 100000, WARM = 10000, LIMIT_KIB = 4096 };
#endif

/* The resident memory of the process in KiB, or -1. */
static long resident_kib(void)
{
    long pages = -1, resident = -1;
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f)
        return -1;
    if (fscanf(f, "%ld %ld", &pages, &resident) != 2)
        resident = -1;
    fclose(f);
    return resident < 0 ? -1 : resident * (sysconf(_SC_PAGESIZE) / 1024);
}

/* One message round the ring on handles of its own; 0, or 1 after a
 * failure (printed). */
static int one_round(int round, int next, int prev)
{
    int out = round, in = -1;
    QMP_msgmem_t om = QMP_declare_msgmem(&out, sizeof out), im = QMP_declare_msgmem(&in, sizeof in);
    QMP_msghandle_t send = om ? QMP_declare_send_to(om, next, 0) : NULL;
    QMP_msghandle_t recv = im ? QMP_declare_receive_from(im, prev, 0) : NULL;
    int bad = !send || !recv || QMP_start(recv) != QMP_SUCCESS || QMP_start(send) != QMP_SUCCESS ||
              QMP_wait(send) != QMP_SUCCESS || QMP_wait(recv) != QMP_SUCCESS;
    if (bad || in != round)
        fprintf(stderr, "node %d round %d: %s (got %d): %s\n", QMP_get_node_number(), round,
                bad ? "a call failed" : "a wrong message", in, QMP_get_error_string(NULL));
    if (send)
        QMP_free_msghandle(send);
    if (recv)
        QMP_free_msghandle(recv);
    if (om)
        QMP_free_msgmem(om);
    if (im)
        QMP_free_msgmem(im);
    return bad || in != round;
}

int main(int argc, char **argv)
{
    QMP_thread_level_t provided;
    if (QMP_init_msg_passing(&argc, &argv, QMP_THREAD_SINGLE, &provided) != QMP_SUCCESS)
        return 2;
    int me = QMP_get_node_number(), n = QMP_get_number_of_nodes();
    int next = (me + 1) % n, prev = (me + n - 1) % n, bad = 0;
    long warm = 0;
    for (int round = 0; round < ROUNDS && !bad; round++) {
        if (round == WARM) {
            QMP_barrier();
            warm = resident_kib();
        }
        bad = one_round(round, next, prev);
    }
    QMP_sum_int(&bad);
    QMP_barrier();
    long grew = resident_kib() - warm;
    if (me == 0) {
        printf("failed rounds %d\n", bad);
        printf("grew %ld KiB\n", grew);
        if (grew > LIMIT_KIB)
            printf("FAIL: more than %d KiB\n", LIMIT_KIB);
    }
    QMP_finalize_msg_passing();
    return bad || grew > LIMIT_KIB;
}
