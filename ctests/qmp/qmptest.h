/*
 * Helpers shared by the QMP test programs of ctests/qmp: one line per call
 * on stdout ("nNN text", NN the node number), failed checks on stderr, and
 * the end of a program. The programs are compared with sorted lines by
 * ctests/qmp_test.go, so a line carries its node number and nothing that
 * depends on timing.
 *
 * The helpers keep no state of their own: only the program "statics" relies
 * on per-node globals, so that a face sharing them fails there alone.
 */
#ifndef QMPTEST_H
#define QMPTEST_H

#include <qmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One line of this node on stdout, written at once so lines never mix. */
static inline void say(const char *fmt, ...)
{
    char line[1024];
    int n = snprintf(line, sizeof line, "n%02d ", QMP_get_node_number());
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    va_end(ap);
    strcat(line, "\n");
    fputs(line, stdout);
    fflush(stdout);
}

/* 0 when ok; else 1, and why on stderr (the caller counts failures). */
static inline int check(int ok, const char *fmt, ...)
{
    if (ok)
        return 0;
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "n%02d FAIL: %s\n", QMP_get_node_number(), line);
    fflush(stderr);
    return 1;
}

/* QMP_init_msg_passing, or the end of the program. */
static inline void start(int *argc, char ***argv)
{
    QMP_thread_level_t provided;
    if (QMP_init_msg_passing(argc, argv, QMP_THREAD_SINGLE, &provided) != QMP_SUCCESS) {
        fprintf(stderr, "QMP_init_msg_passing failed\n");
        exit(2);
    }
}

/* The end of a program: node 0 prints the failed checks of all nodes,
 * and a node that failed one exits with status 1. */
static inline int finish(int bad)
{
    int total = bad;
    if (QMP_sum_int(&total) != QMP_SUCCESS)
        total = -1;
    if (QMP_get_node_number() == 0)
        say("failed checks %d", total);
    QMP_finalize_msg_passing();
    return bad || total ? 1 : 0;
}

/* The symbolic name of a status, for lines that must not depend on an
 * implementation's error texts. */
static inline const char *status_name(QMP_status_t s)
{
    static const char *const names[] = {
        "QMP_ERROR", "QMP_NOT_INITED", "QMP_RTENV_ERR", "QMP_CPUINFO_ERR",
        "QMP_NODEINFO_ERR", "QMP_NOMEM_ERR", "QMP_MEMSIZE_ERR", "QMP_HOSTNAME_ERR",
        "QMP_INITSVC_ERR", "QMP_TOPOLOGY_EXISTS", "QMP_CH_TIMEOUT", "QMP_NOTSUPPORTED",
        "QMP_SVC_BUSY", "QMP_BAD_MESSAGE", "QMP_INVALID_ARG", "QMP_INVALID_TOPOLOGY",
        "QMP_NONEIGHBOR_INFO", "QMP_MEMSIZE_TOOBIG", "QMP_BAD_MEMORY", "QMP_NO_PORTS",
        "QMP_NODE_OUTRANGE", "QMP_CHDEF_ERR", "QMP_MEMUSED_ERR", "QMP_INVALID_OP",
        "QMP_TIMEOUT"};
    if (s == QMP_SUCCESS)
        return "QMP_SUCCESS";
    if (s >= QMP_ERROR && s < QMP_MAX_STATUS)
        return names[s - QMP_ERROR];
    return "(not a QMP status)";
}

/* Logical dimensions for n nodes (a power of 2) in 4 dimensions, unequal
 * so that a mix-up of axes shows: 16 -> 4 2 2 1, 4 -> 2 2 1 1. */
static inline int grid_dims(int n, int dims[4])
{
    static const int order[] = {0, 1, 2, 0, 3, 1, 2, 3};
    for (int i = 0; i < 4; i++)
        dims[i] = 1;
    for (int k = 0; n > 1; k++, n /= 2) {
        if (n % 2 || k >= 8)
            return 0;
        dims[order[k]] *= 2;
    }
    return 1;
}

#endif
