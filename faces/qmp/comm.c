/*
 * Communicators: the allocated machine, the job and the default
 * communicator (all nodes), and those QMP_comm_split makes. A node's
 * number in a communicator is its rank there; members[rank] is the core.
 */
#include "qmp_face.h"

#include <stdlib.h>
#include <string.h>

QMP_comm_t qmp_comm_new(const int *members, int size, int rank, int color, int key, int ncolors)
{
    QMP_comm_t c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->members = malloc((size_t)size * sizeof *c->members);
    if (!c->members) {
        free(c);
        return NULL;
    }
    memcpy(c->members, members, (size_t)size * sizeof *c->members);
    c->magic = COMM_MAGIC;
    c->size = size;
    c->rank = rank;
    c->color = color;
    c->key = key;
    c->ncolors = ncolors;
    return c;
}

void qmp_comm_release(QMP_comm_t c)
{
    qmp_gathers_free(c);
    c->magic = 0;
    free(c->members);
    free(c);
}

QMP_comm_t QMP_comm_get_allocated(void)
{
    struct qmp_node *n = qmp_node_of("QMP_comm_get_allocated");
    return n ? n->allocated : NULL;
}

QMP_comm_t QMP_comm_get_job(void)
{
    struct qmp_node *n = qmp_node_of("QMP_comm_get_job");
    return n ? n->job : NULL;
}

QMP_comm_t QMP_comm_get_default(void)
{
    struct qmp_node *n = qmp_node_of("QMP_comm_get_default");
    return n ? n->deflt : NULL;
}

/* Sets *slot to comm after checking it. */
static QMP_status_t set_comm(QMP_comm_t *slot, QMP_comm_t comm, struct qmp_node *n, const char *call)
{
    if (!n)
        return QMP_NOT_INITED;
    if (!comm || comm->magic != COMM_MAGIC)
        return qmp_fail(n, QMP_INVALID_ARG, "%s: not a communicator", call);
    *slot = comm;
    return QMP_SUCCESS;
}

QMP_status_t QMP_comm_set_allocated(QMP_comm_t comm)
{
    struct qmp_node *n = qmp_node_of("QMP_comm_set_allocated");
    return set_comm(n ? &n->allocated : NULL, comm, n, "QMP_comm_set_allocated");
}

QMP_status_t QMP_comm_set_job(QMP_comm_t comm)
{
    struct qmp_node *n = qmp_node_of("QMP_comm_set_job");
    return set_comm(n ? &n->job : NULL, comm, n, "QMP_comm_set_job");
}

QMP_status_t QMP_comm_set_default(QMP_comm_t comm)
{
    struct qmp_node *n = qmp_node_of("QMP_comm_set_default");
    return set_comm(n ? &n->deflt : NULL, comm, n, "QMP_comm_set_default");
}

/* A member's color and key, as gathered by QMP_comm_split. */
struct split_entry {
    int color, key;
};

/* The members of color in comm, ordered by key then by rank in comm;
 * *mine: the caller's rank among them. */
static int pick_members(const struct split_entry *all, int size, int color, int myrank, int *members, int *mine)
{
    int n = 0;
    for (int r = 0; r < size; r++) {
        if (all[r].color != color)
            continue;
        int at = n++;
        while (at > 0 && all[members[at - 1]].key > all[r].key) {
            members[at] = members[at - 1];
            at--;
        }
        members[at] = r;
    }
    for (int i = 0; i < n; i++)
        if (members[i] == myrank)
            *mine = i;
    return n;
}

static int count_colors(const struct split_entry *all, int size)
{
    int colors = 0;
    for (int r = 0; r < size; r++) {
        int seen = 0;
        for (int q = 0; q < r && !seen; q++)
            seen = all[q].color == all[r].color;
        colors += !seen;
    }
    return colors;
}

QMP_status_t QMP_comm_split(QMP_comm_t comm, int color, int key, QMP_comm_t *newcomm)
{
    struct qmp_node *n = qmp_node_of("QMP_comm_split");
    if (!n)
        return QMP_NOT_INITED;
    QMP_comm_t c = qmp_comm(n, comm, "QMP_comm_split");
    if (!c)
        return n->last;
    if (!newcomm)
        return qmp_fail(n, QMP_INVALID_ARG, "QMP_comm_split: newcomm is NULL");
    struct split_entry mine = {color, key};
    struct split_entry *all = malloc((size_t)c->size * sizeof *all);
    int *ranks = malloc((size_t)c->size * sizeof *ranks);
    QMP_status_t st = all && ranks ? qmp_allgather(n, c, "QMP_comm_split", &mine, sizeof mine, all)
                                   : qmp_fail(n, QMP_NOMEM_ERR, "QMP_comm_split: out of memory");
    if (st == QMP_SUCCESS) {
        int rank = 0;
        int size = pick_members(all, c->size, color, c->rank, ranks, &rank);
        for (int i = 0; i < size; i++)
            ranks[i] = c->members[ranks[i]];
        *newcomm = qmp_comm_new(ranks, size, rank, color, key, count_colors(all, c->size));
        if (!*newcomm)
            st = qmp_fail(n, QMP_NOMEM_ERR, "QMP_comm_split: out of memory");
    }
    free(all);
    free(ranks);
    return st;
}

QMP_status_t QMP_comm_free(QMP_comm_t comm)
{
    struct qmp_node *n = qmp_node_of("QMP_comm_free");
    if (!n)
        return QMP_NOT_INITED;
    if (!comm || comm->magic != COMM_MAGIC)
        return qmp_fail(n, QMP_INVALID_ARG, "QMP_comm_free: not a communicator");
    if (comm == n->allocated || comm == n->job || comm == n->deflt)
        return qmp_fail(n, QMP_INVALID_ARG, "QMP_comm_free: the allocated, job or default communicator");
    qmp_comm_release(comm);
    return QMP_SUCCESS;
}

/* comm's field, or -1 after an error. */
static QMP_comm_t comm_or_fail(QMP_comm_t comm, const char *call)
{
    struct qmp_node *n = qmp_node_of(call);
    return n ? qmp_comm(n, comm, call) : NULL;
}

int QMP_comm_get_number_of_colors(QMP_comm_t comm)
{
    QMP_comm_t c = comm_or_fail(comm, "QMP_comm_get_number_of_colors");
    return c ? c->ncolors : -1;
}

int QMP_comm_get_color(QMP_comm_t comm)
{
    QMP_comm_t c = comm_or_fail(comm, "QMP_comm_get_color");
    return c ? c->color : -1;
}

int QMP_comm_get_key(QMP_comm_t comm)
{
    QMP_comm_t c = comm_or_fail(comm, "QMP_comm_get_key");
    return c ? c->key : -1;
}

QMP_status_t QMP_get_hidden_comm(QMP_comm_t comm, void **hiddencomm)
{
    struct qmp_node *n = qmp_node_of("QMP_get_hidden_comm");
    if (!n)
        return QMP_NOT_INITED;
    if (hiddencomm)
        *hiddencomm = NULL;
    if (!qmp_comm(n, comm, "QMP_get_hidden_comm"))
        return n->last;
    return qmp_fail(n, QMP_NOTSUPPORTED, "QMP_get_hidden_comm: no MPI communicator underneath (libebsp's nodes are cores)");
}

/* ---- the machine ---- */

QMP_ictype_t QMP_get_msg_passing_type(void)
{
    struct qmp_node *n = qmp_node_of("QMP_get_msg_passing_type");
    return n && n->allocated->declared ? QMP_MESH : QMP_SWITCH;
}

int QMP_comm_get_number_of_nodes(QMP_comm_t comm)
{
    QMP_comm_t c = comm_or_fail(comm, "QMP_comm_get_number_of_nodes");
    return c ? c->size : 0;
}

int QMP_get_number_of_nodes(void)
{
    return QMP_comm_get_number_of_nodes(qmp_default());
}

int QMP_comm_get_node_number(QMP_comm_t comm)
{
    QMP_comm_t c = comm_or_fail(comm, "QMP_comm_get_node_number");
    return c ? c->rank : -1;
}

int QMP_get_node_number(void)
{
    return QMP_comm_get_node_number(qmp_default());
}

int QMP_get_number_of_jobs(void)
{
    struct qmp_node *n = qmp_node_of("QMP_get_number_of_jobs");
    return n ? n->job->ncolors : 0;
}

int QMP_get_job_number(void)
{
    struct qmp_node *n = qmp_node_of("QMP_get_job_number");
    return n ? n->job->color : 0;
}

QMP_bool_t QMP_comm_is_primary_node(QMP_comm_t comm)
{
    QMP_comm_t c = comm_or_fail(comm, "QMP_comm_is_primary_node");
    return c && c->rank == 0 ? QMP_TRUE : QMP_FALSE;
}

QMP_bool_t QMP_is_primary_node(void)
{
    return QMP_comm_is_primary_node(qmp_default());
}

int QMP_io_node(int node)
{
    return node;
}

int QMP_master_io_node(void)
{
    return 0;
}
