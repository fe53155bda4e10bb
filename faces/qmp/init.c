/*
 * Starting and ending QMP: the nodes' section, their state, the -qmp-*
 * arguments, errors.
 */
#define _GNU_SOURCE
#include "qmp_face.h"
#include "../bsplib/bsplib.h"

#include <lqcd_msg.h>
#define BSPLIB_NO_NAME_MAP
#include <bsp.h>

#include <ctype.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the -qmp-* arguments ---- */

/* Takes argv[first..last] out of argv (the NULL after the last one moves too). */
static void drop_args(int *argc, char **argv, int first, int last)
{
    int n = last - first + 1;
    for (int i = last + 1; i <= *argc; i++)
        argv[i - n] = argv[i];
    *argc -= n;
}

/* The integers after the argument tag (their count in *len), taken out of
 * argv with it; NULL and *len 0 when absent. "native" after it is a
 * length of -1, as in QMP. */
static int *int_args(int *argc, char **argv, const char *tag, int *len)
{
    *len = 0;
    for (int i = 1; i < *argc; i++) {
        if (!argv[i] || strcmp(argv[i], tag) != 0)
            continue;
        if (i + 1 < *argc && argv[i + 1] && strcmp(argv[i + 1], "native") == 0) {
            *len = -1;
            drop_args(argc, argv, i, i + 1);
            return NULL;
        }
        int k = i + 1;
        while (k < *argc && argv[k] && isdigit((unsigned char)argv[k][0]))
            k++;
        int n = k - i - 1;
        int *v = n ? malloc((size_t)n * sizeof *v) : NULL;
        for (int j = 0; v && j < n; j++)
            v[j] = atoi(argv[i + 1 + j]);
        *len = v ? n : 0;
        drop_args(argc, argv, i, k - 1);
        return v;
    }
    return NULL;
}

static void take_args(struct qmp_node *n, int *argc, char ***argv)
{
    if (!argc || !argv || !*argv)
        return;
    n->geom = int_args(argc, *argv, "-qmp-geom", &n->geomlen);
    n->amap = int_args(argc, *argv, "-qmp-alloc-map", &n->amaplen);
    n->lmap = int_args(argc, *argv, "-qmp-logic-map", &n->lmaplen);
    int jobs;
    free(int_args(argc, *argv, "-qmp-job", &jobs)); /* one job here */
    free(int_args(argc, *argv, "-qmp-nmpi", &jobs));
}

/* ---- the nodes' communicators ---- */

static QMP_status_t make_comms(struct qmp_node *n, int total)
{
    int *all = malloc((size_t)total * sizeof *all);
    if (!all)
        return qmp_fail(n, QMP_NOMEM_ERR, "QMP_init_msg_passing: out of memory");
    for (int i = 0; i < total; i++)
        all[i] = i;
    n->allocated = qmp_comm_new(all, total, n->pid, 0, 0, 1);
    n->job = qmp_comm_new(all, total, n->pid, 0, 0, 1);
    n->deflt = qmp_comm_new(all, total, n->pid, 0, 0, 1);
    free(all);
    if (!n->allocated || !n->job || !n->deflt)
        return qmp_fail(n, QMP_NOMEM_ERR, "QMP_init_msg_passing: out of memory");
    if (n->geomlen > 0) {
        QMP_status_t st = qmp_topo_set(n, n->allocated, "-qmp-geom", n->geom, n->geomlen,
                                       n->amaplen > 0 ? n->amap : NULL, n->amaplen);
        if (st != QMP_SUCCESS)
            return st;
    }
    return QMP_SUCCESS;
}

/* The first node of this process: makes the node table, starts the
 * section (the other cores run their copies of main) and becomes a node. */
static int start_nodes(void)
{
    int total = (int)bsplib_nprocs();
    if (!qmp_nodes_make(total))
        return 0;
    bl_core_main = qmp_node_main;
    bsplib_begin((unsigned)total);
    return 1;
}

QMP_status_t QMP_init_msg_passing(int *argc, char ***argv, QMP_thread_level_t required,
                                  QMP_thread_level_t *provided)
{
    if (!ebsp_self && qmp_nodes())
        return QMP_ERROR; /* QMP cannot start again after QMP_finalize_msg_passing */
    if (!ebsp_self && !start_nodes())
        return QMP_NOMEM_ERR;
    if (ebsp_self && !ebsp_self->in_section)
        bsplib_begin((unsigned)qmp_nodes());
    struct qmp_node *n = qmp_self();
    if (!n)
        return QMP_RTENV_ERR;
    if (n->inited)
        return qmp_fail(n, QMP_ERROR, "QMP_init_msg_passing: called twice on node %d", n->pid);
    n->pid = ebsp_self->pid;
    n->last = QMP_SUCCESS;
    take_args(n, argc, argv);
    if (initMachine() != 0)
        return qmp_lqcd_failed(n, "QMP_init_msg_passing");
    QMP_status_t st = make_comms(n, qmp_nodes());
    if (st != QMP_SUCCESS)
        return st;
    if (!qmp_lines_start(n))
        return qmp_lqcd_failed(n, "QMP_init_msg_passing: the channel of printed lines");
    n->inited = 1;
    if (provided)
        *provided = required > QMP_THREAD_SERIALIZED ? QMP_THREAD_SERIALIZED : required;
    return QMP_SUCCESS;
}

QMP_bool_t QMP_is_initialized(void)
{
    struct qmp_node *n = qmp_self();
    return n && n->inited && !n->finalized ? QMP_TRUE : QMP_FALSE;
}

void QMP_finalize_msg_passing(void)
{
    struct qmp_node *n = qmp_node_of("QMP_finalize_msg_passing");
    if (!n)
        return;
    qmp_lines_finish(n); /* under mpirun: every node's lines printed */
    waitForBarrier(); /* messages in flight to a node end with it */
    shutdownMachine();
    n->finalized = 1;
    bsplib_end(); /* the other nodes leave here; node 0 goes on */
}

void QMP_abort(int error_code)
{
    QMP_abort_string(error_code, NULL);
}

void QMP_abort_string(int error_code, char *message)
{
    if (!ebsp_self) {
        fprintf(stderr, "QMP_abort: error code %d%s%s\n", error_code, message ? ": " : "", message ? message : "");
        exit(error_code ? error_code : EXIT_FAILURE);
    }
    bsplib_abort("QMP_abort: error code %d on node %d%s%s\n", error_code, ebsp_self->pid, message ? ": " : "",
                 message ? message : "");
}
