/*
 * Collectives. Over every node (the default communicator as QMP_init
 * makes it), the sums, the barrier and nothing else are the LQCD
 * collectives (lqcd_msg.h: the contributions added in node order, the
 * same bits in every layout). Everything else, and every collective of a
 * smaller communicator, is a gather over LQCD channels: each member sends
 * its bytes to the communicator's node 0, which sends all of them back to
 * each; every member then combines the values itself, in rank order, so
 * all get the same bits (a broadcast only goes down). A communicator keeps
 * the channels of each message size it used (LQCD channels are declared
 * once and started many times).
 */
#include "qmp_face.h"

#include "../lqcd/lqcd_declared.h"

#include <lqcd_msg.h>

#include <limits.h>
#include <stdlib.h>
#include <string.h>

enum { GATHER_ALL = 1, GATHER_BCAST };

struct qmp_gather {
    int mode;
    size_t nbytes;          /* one member's share */
    char *up_buf;           /* a member's share on its way up */
    char *all;              /* every share, in rank order (node 0: sent down from there) */
    void **up, **down;      /* node 0: [rank]; a member: [0] */
    struct qmp_gather *next;
};

static void gather_free(struct qmp_gather *g)
{
    if (!g)
        return;
    free(g->up_buf);
    free(g->all);
    free(g->up);
    free(g->down);
    free(g);
}

void qmp_gathers_free(QMP_comm_t c)
{
    while (c->gathers) {
        struct qmp_gather *g = c->gathers;
        c->gathers = g->next;
        gather_free(g);
    }
}

/* The LQCD channels of a gather: node 0 receives each member's share into
 * its slot of `all` and sends `all` down; a member sends up_buf and
 * receives `all`. 0 after an error. */
static int gather_channels(struct qmp_node *n, QMP_comm_t c, struct qmp_gather *g, const char *call)
{
    int share = (int)g->nbytes, down = g->mode == GATHER_ALL ? share * c->size : share;
    int root = c->members[0];
    if (c->rank != 0) {
        if (g->mode == GATHER_ALL)
            g->up[0] = declareSendTo(g->up_buf, share, root, qmp_channel_name(n, root, CHANNEL_GATHER, 1));
        g->down[0] = declareReceive(g->all, down, qmp_channel_name(n, root, CHANNEL_GATHER, 0));
        if ((g->mode == GATHER_ALL && !g->up[0]) || !g->down[0]) {
            qmp_lqcd_failed(n, call);
            return 0;
        }
        return 1;
    }
    for (int r = 1; r < c->size; r++) {
        int to = c->members[r];
        if (g->mode == GATHER_ALL &&
            !(g->up[r] = declareReceive(g->all + (size_t)r * g->nbytes, share,
                                        qmp_channel_name(n, to, CHANNEL_GATHER, 0))))
            return qmp_lqcd_failed(n, call), 0;
        if (!(g->down[r] = declareSendTo(g->all, down, to, qmp_channel_name(n, to, CHANNEL_GATHER, 1))))
            return qmp_lqcd_failed(n, call), 0;
    }
    return 1;
}

/* The gather of c for shares of nbytes in mode, made at its first use. */
static struct qmp_gather *gather_of(struct qmp_node *n, QMP_comm_t c, size_t nbytes, int mode, const char *call)
{
    for (struct qmp_gather *g = c->gathers; g; g = g->next)
        if (g->nbytes == nbytes && g->mode == mode)
            return g;
    if (nbytes > INT_MAX || (mode == GATHER_ALL && nbytes > INT_MAX / (size_t)c->size)) {
        qmp_fail(n, QMP_MEMSIZE_TOOBIG, "%s: %zu bytes from each of %d nodes", call, nbytes, c->size);
        return NULL;
    }
    size_t total = mode == GATHER_ALL ? nbytes * (size_t)c->size : nbytes;
    struct qmp_gather *g = calloc(1, sizeof *g);
    if (g) {
        g->mode = mode;
        g->nbytes = nbytes;
        g->up_buf = malloc(nbytes ? nbytes : 1);
        g->all = malloc(total ? total : 1);
        g->up = calloc((size_t)c->size, sizeof *g->up);
        g->down = calloc((size_t)c->size, sizeof *g->down);
    }
    if (!g || !g->up_buf || !g->all || !g->up || !g->down) {
        gather_free(g);
        qmp_fail(n, QMP_NOMEM_ERR, "%s: out of memory", call);
        return NULL;
    }
    if (!gather_channels(n, c, g, call)) {
        return NULL; /* g stays allocated: channels declared before the failure keep its buffers */
    }
    g->next = c->gathers;
    c->gathers = g;
    return g;
}

/* Waits for the channel; QMP_SUCCESS or the LQCD error as a status. */
static QMP_status_t finish(struct qmp_node *n, void *chan, const char *call)
{
    return waitFor(chan, -1) == 1 ? QMP_SUCCESS : qmp_lqcd_failed(n, call);
}

/* Node 0's part: every share in, `all` out. */
static QMP_status_t root_part(struct qmp_node *n, QMP_comm_t c, struct qmp_gather *g, const char *call)
{
    QMP_status_t st = QMP_SUCCESS;
    if (g->mode == GATHER_ALL) {
        for (int r = 1; r < c->size; r++)
            startReceive(g->up[r]);
        for (int r = 1; r < c->size && st == QMP_SUCCESS; r++)
            st = finish(n, g->up[r], call);
    }
    for (int r = 1; r < c->size && st == QMP_SUCCESS; r++)
        startSend(g->down[r]);
    for (int r = 1; r < c->size && st == QMP_SUCCESS; r++)
        st = finish(n, g->down[r], call);
    return st;
}

static QMP_status_t member_part(struct qmp_node *n, struct qmp_gather *g, const char *call)
{
    startReceive(g->down[0]);
    if (g->mode == GATHER_ALL)
        startSend(g->up[0]);
    QMP_status_t st = g->mode == GATHER_ALL ? finish(n, g->up[0], call) : QMP_SUCCESS;
    return st == QMP_SUCCESS ? finish(n, g->down[0], call) : st;
}

QMP_status_t qmp_allgather(struct qmp_node *n, QMP_comm_t c, const char *call, const void *mine, size_t nbytes,
                           void *all)
{
    if (c->size == 1) {
        memcpy(all, mine, nbytes);
        return QMP_SUCCESS;
    }
    struct qmp_gather *g = gather_of(n, c, nbytes, GATHER_ALL, call);
    if (!g)
        return n->last;
    QMP_status_t st;
    if (c->rank == 0) {
        memcpy(g->all, mine, nbytes);
        st = root_part(n, c, g, call);
    } else {
        memcpy(g->up_buf, mine, nbytes);
        st = member_part(n, g, call);
    }
    if (st == QMP_SUCCESS)
        memcpy(all, g->all, nbytes * (size_t)c->size);
    return st;
}

/* ---- the calls ---- */

/* The calling node and its communicator comm, or
 * NULL: *st says why. */
static QMP_comm_t collective(QMP_comm_t comm, const char *call, struct qmp_node **np, QMP_status_t *st)
{
    struct qmp_node *n = *np = qmp_node_of(call);
    if (!n) {
        *st = QMP_NOT_INITED;
        return NULL;
    }
    QMP_comm_t c = qmp_comm(n, comm, call);
    *st = c ? QMP_SUCCESS : n->last;
    return c;
}

/* Whether c spans every node: the LQCD collectives serve it. */
static int every_node(QMP_comm_t c)
{
    return c->size == qmp_nodes();
}

/* After an LQCD collective: its error as a status. */
static QMP_status_t lqcd_status(struct qmp_node *n, const char *call)
{
    return getErrorNumber() == LQCD_OK ? QMP_SUCCESS : qmp_lqcd_failed(n, call);
}

QMP_status_t QMP_comm_barrier(QMP_comm_t comm)
{
    struct qmp_node *n;
    QMP_status_t st;
    QMP_comm_t c = collective(comm, "QMP_barrier", &n, &st);
    if (!c)
        return st;
    if (every_node(c)) {
        waitForBarrier();
        return lqcd_status(n, "QMP_barrier");
    }
    char one = 0, *all = malloc((size_t)c->size);
    st = all ? qmp_allgather(n, c, "QMP_barrier", &one, 1, all) : qmp_fail(n, QMP_NOMEM_ERR, "QMP_barrier: out of memory");
    free(all);
    return st;
}

QMP_status_t QMP_barrier(void)
{
    return QMP_comm_barrier(qmp_default());
}

QMP_status_t QMP_comm_broadcast(QMP_comm_t comm, void *buffer, size_t nbytes)
{
    const char *call = "QMP_broadcast";
    struct qmp_node *n;
    QMP_status_t st;
    QMP_comm_t c = collective(comm, call, &n, &st);
    if (!c)
        return st;
    if (!buffer && nbytes)
        return qmp_fail(n, QMP_INVALID_ARG, "%s: NULL buffer of %zu bytes", call, nbytes);
    if (c->size == 1 || nbytes == 0)
        return QMP_SUCCESS;
    struct qmp_gather *g = gather_of(n, c, nbytes, GATHER_BCAST, call);
    if (!g)
        return n->last;
    if (c->rank == 0) {
        memcpy(g->all, buffer, nbytes);
        return root_part(n, c, g, call);
    }
    st = member_part(n, g, call);
    if (st == QMP_SUCCESS)
        memcpy(buffer, g->all, nbytes);
    return st;
}

QMP_status_t QMP_broadcast(void *buffer, size_t nbytes)
{
    return QMP_comm_broadcast(qmp_default(), buffer, nbytes);
}

/* Every member's `count` elements of `size` bytes at value, in rank
 * order, into a new array (*all, freed by the caller). */
static QMP_status_t gather_values(struct qmp_node *n, QMP_comm_t c, const char *call, const void *value, size_t size,
                                  int count, void **all)
{
    if (!value || count < 0) {
        *all = NULL;
        return qmp_fail(n, QMP_INVALID_ARG, "%s: NULL value or length %d", call, count);
    }
    size_t share = size * (size_t)count;
    *all = malloc(share * (size_t)c->size + 1);
    if (!*all)
        return qmp_fail(n, QMP_NOMEM_ERR, "%s: out of memory", call);
    return qmp_allgather(n, c, call, value, share, *all);
}

/* Defines a reduction over a gather: TYPE elements, ACC the accumulator's
 * type, COMBINE(acc, x) the next value in rank order, FINISH(acc) the
 * result. */
#define GATHERED_REDUCTION(fn, TYPE, ACC, COMBINE, FINISH)                                                    \
    static QMP_status_t fn(QMP_comm_t comm, TYPE *value, int count, const char *call)                         \
    {                                                                                                          \
        struct qmp_node *n;                                                                                    \
        QMP_status_t st;                                                                                       \
        QMP_comm_t c = collective(comm, call, &n, &st);                                                        \
        if (!c)                                                                                                \
            return st;                                                                                         \
        void *got;                                                                                             \
        st = gather_values(n, c, call, value, sizeof(TYPE), count, &got);                                      \
        const TYPE *all = got;                                                                                 \
        for (int i = 0; st == QMP_SUCCESS && i < count; i++) {                                                 \
            ACC acc = (ACC)all[i];                                                                             \
            for (int r = 1; r < c->size; r++) {                                                                \
                TYPE x = all[(size_t)r * (size_t)count + (size_t)i];                                           \
                acc = COMBINE(acc, x);                                                                         \
            }                                                                                                  \
            value[i] = (TYPE)(FINISH(acc));                                                                    \
        }                                                                                                      \
        free(got);                                                                                             \
        return st;                                                                                             \
    }

#define ADD(a, x) ((a) + (x))
#define SAME(a) (a)
#define MAX(a, x) ((x) > (a) ? (x) : (a))
#define MIN(a, x) ((x) < (a) ? (x) : (a))
#define XOR(a, x) ((a) ^ (x))

GATHERED_REDUCTION(sum_int_gathered, int, unsigned, ADD, SAME)
GATHERED_REDUCTION(sum_u64_gathered, uint64_t, uint64_t, ADD, SAME)
GATHERED_REDUCTION(sum_float_gathered, float, double, ADD, SAME)
GATHERED_REDUCTION(sum_double_gathered, double, double, ADD, SAME)
GATHERED_REDUCTION(sum_extended_gathered, double, long double, ADD, SAME)
GATHERED_REDUCTION(sum_ldouble_gathered, long double, long double, ADD, SAME)
GATHERED_REDUCTION(max_float_gathered, float, float, MAX, SAME)
GATHERED_REDUCTION(max_double_gathered, double, double, MAX, SAME)
GATHERED_REDUCTION(min_float_gathered, float, float, MIN, SAME)
GATHERED_REDUCTION(min_double_gathered, double, double, MIN, SAME)
GATHERED_REDUCTION(xor_gathered, unsigned long, unsigned long, XOR, SAME)

/* Whether comm spans every node: the LQCD sums serve it (n: the calling
 * node, NULL when QMP is not initialised on it). */
static int lqcd_sums(const struct qmp_node *n, QMP_comm_t comm)
{
    return n && comm && comm->magic == COMM_MAGIC && every_node(comm);
}

QMP_status_t QMP_comm_sum_int(QMP_comm_t comm, int *value)
{
    struct qmp_node *n = qmp_node_of("QMP_sum_int");
    if (value && lqcd_sums(n, comm)) {
        *value = sumInt(*value);
        return lqcd_status(n, "QMP_sum_int");
    }
    return sum_int_gathered(comm, value, 1, "QMP_sum_int");
}

QMP_status_t QMP_comm_sum_float(QMP_comm_t comm, float *value)
{
    struct qmp_node *n = qmp_node_of("QMP_sum_float");
    if (value && lqcd_sums(n, comm)) {
        *value = sumFloat(*value);
        return lqcd_status(n, "QMP_sum_float");
    }
    return sum_float_gathered(comm, value, 1, "QMP_sum_float");
}

/* QMP_sum_double on comm for node n: the hot path of the sums (one look
 * at the calling node, the sum's status from its return). */
static QMP_status_t sum_double(struct qmp_node *n, QMP_comm_t comm, double *value)
{
    if (value && lqcd_sums(n, comm))
        return lqcd_sum_double(value) == 0 ? QMP_SUCCESS : qmp_lqcd_failed(n, "QMP_sum_double");
    return sum_double_gathered(comm, value, 1, "QMP_sum_double");
}

QMP_status_t QMP_comm_sum_double(QMP_comm_t comm, double *value)
{
    return sum_double(qmp_node_of("QMP_sum_double"), comm, value);
}

QMP_status_t QMP_comm_sum_float_array(QMP_comm_t comm, float value[], int length)
{
    struct qmp_node *n = qmp_node_of("QMP_sum_float_array");
    if (value && length >= 0 && lqcd_sums(n, comm)) {
        sumFloatArray(value, length);
        return lqcd_status(n, "QMP_sum_float_array");
    }
    return sum_float_gathered(comm, value, length, "QMP_sum_float_array");
}

QMP_status_t QMP_comm_sum_double_array(QMP_comm_t comm, double value[], int length)
{
    struct qmp_node *n = qmp_node_of("QMP_sum_double_array");
    if (value && length >= 0 && lqcd_sums(n, comm)) {
        sumDoubleArray(value, length);
        return lqcd_status(n, "QMP_sum_double_array");
    }
    return sum_double_gathered(comm, value, length, "QMP_sum_double_array");
}

QMP_status_t QMP_comm_sum_uint64_t(QMP_comm_t comm, uint64_t *value)
{
    return sum_u64_gathered(comm, value, 1, "QMP_sum_uint64_t");
}

QMP_status_t QMP_comm_sum_double_extended(QMP_comm_t comm, double *value)
{
    return sum_extended_gathered(comm, value, 1, "QMP_sum_double_extended");
}

QMP_status_t QMP_comm_sum_long_double(QMP_comm_t comm, long double *value)
{
    return sum_ldouble_gathered(comm, value, 1, "QMP_sum_long_double");
}

QMP_status_t QMP_comm_sum_long_double_array(QMP_comm_t comm, long double value[], int length)
{
    return sum_ldouble_gathered(comm, value, length, "QMP_sum_long_double_array");
}

QMP_status_t QMP_comm_max_float(QMP_comm_t comm, float *value)
{
    return max_float_gathered(comm, value, 1, "QMP_max_float");
}

QMP_status_t QMP_comm_max_double(QMP_comm_t comm, double *value)
{
    return max_double_gathered(comm, value, 1, "QMP_max_double");
}

QMP_status_t QMP_comm_min_float(QMP_comm_t comm, float *value)
{
    return min_float_gathered(comm, value, 1, "QMP_min_float");
}

QMP_status_t QMP_comm_min_double(QMP_comm_t comm, double *value)
{
    return min_double_gathered(comm, value, 1, "QMP_min_double");
}

QMP_status_t QMP_comm_xor_ulong(QMP_comm_t comm, unsigned long *value)
{
    return xor_gathered(comm, value, 1, "QMP_xor_ulong");
}

QMP_status_t QMP_sum_int(int *value) { return QMP_comm_sum_int(qmp_default(), value); }
QMP_status_t QMP_sum_uint64_t(uint64_t *value) { return QMP_comm_sum_uint64_t(qmp_default(), value); }
QMP_status_t QMP_sum_float(float *value) { return QMP_comm_sum_float(qmp_default(), value); }
QMP_status_t QMP_sum_double(double *value)
{
    struct qmp_node *n = qmp_node_of("QMP_sum_double");
    return sum_double(n, n ? n->deflt : NULL, value);
}
QMP_status_t QMP_sum_long_double(long double *value) { return QMP_comm_sum_long_double(qmp_default(), value); }
QMP_status_t QMP_sum_double_extended(double *value) { return QMP_comm_sum_double_extended(qmp_default(), value); }
QMP_status_t QMP_sum_float_array(float value[], int length) { return QMP_comm_sum_float_array(qmp_default(), value, length); }
QMP_status_t QMP_sum_double_array(double value[], int length) { return QMP_comm_sum_double_array(qmp_default(), value, length); }
QMP_status_t QMP_sum_long_double_array(long double value[], int length)
{
    return QMP_comm_sum_long_double_array(qmp_default(), value, length);
}
QMP_status_t QMP_max_float(float *value) { return QMP_comm_max_float(qmp_default(), value); }
QMP_status_t QMP_max_double(double *value) { return QMP_comm_max_double(qmp_default(), value); }
QMP_status_t QMP_min_float(float *value) { return QMP_comm_min_float(qmp_default(), value); }
QMP_status_t QMP_min_double(double *value) { return QMP_comm_min_double(qmp_default(), value); }
QMP_status_t QMP_xor_ulong(unsigned long *value) { return QMP_comm_xor_ulong(qmp_default(), value); }

QMP_status_t QMP_comm_binary_reduction(QMP_comm_t comm, void *lbuffer, size_t buflen, QMP_binary_func bfunc)
{
    const char *call = "QMP_binary_reduction";
    struct qmp_node *n;
    QMP_status_t st;
    QMP_comm_t c = collective(comm, call, &n, &st);
    if (!c)
        return st;
    if (!bfunc || (!lbuffer && buflen))
        return qmp_fail(n, QMP_INVALID_ARG, "%s: NULL function or buffer", call);
    void *got;
    st = gather_values(n, c, call, lbuffer, buflen, 1, &got);
    if (st == QMP_SUCCESS) {
        /* the whole buffers, node 0's first, each next one folded in */
        char *all = got;
        for (int r = 1; r < c->size; r++)
            bfunc(all, all + (size_t)r * buflen);
        memcpy(lbuffer, all, buflen);
    }
    free(got);
    return st;
}

QMP_status_t QMP_binary_reduction(void *lbuffer, size_t buflen, QMP_binary_func bfunc)
{
    return QMP_comm_binary_reduction(qmp_default(), lbuffer, buflen, bfunc);
}

QMP_status_t QMP_comm_alltoall(QMP_comm_t comm, char *recvbuffer, char *sendbuffer, int count)
{
    const char *call = "QMP_comm_alltoall";
    struct qmp_node *n;
    QMP_status_t st;
    QMP_comm_t c = collective(comm, call, &n, &st);
    if (!c)
        return st;
    if (!recvbuffer || !sendbuffer || count < 0)
        return qmp_fail(n, QMP_INVALID_ARG, "%s: NULL buffer or count %d", call, count);
    void *got;
    st = gather_values(n, c, call, sendbuffer, (size_t)count, c->size, &got);
    if (st == QMP_SUCCESS) {
        /* member r's block for this node */
        size_t block = (size_t)count, row = block * (size_t)c->size;
        for (int r = 0; r < c->size; r++)
            memcpy(recvbuffer + (size_t)r * block, (char *)got + (size_t)r * row + (size_t)c->rank * block, block);
    }
    free(got);
    return st;
}
