/*
 * Message handles on LQCD channels (lqcd_msg.h): a QMP send is an LQCD
 * send to the receiving node's buffer name, a QMP receive an LQCD receive
 * declared under that name, so the matching, the waits and the transport
 * across MPI ranks are the LQCD API's.
 *
 * Names: QMP over MPI matches a message by its source node and a tag that
 * tells a plain send from a relative one and its direction (+ or -); a
 * node declares the channels to and from each peer in the same order as
 * the peer declares their other ends. The name of the k-th channel of a
 * kind between two nodes is (kind, sender, k): each side counts its own
 * declarations per peer and kind.
 *
 * Sizes: a QMP receive may be larger than the message that arrives (MPI's
 * rule), an LQCD channel's two ends have one size. So each end of a
 * handle tells the other its size once, at the declaration, on a small
 * channel of its own (started at once, it completes whenever the other
 * end looks); the data channel is declared with the sender's size when
 * both are known: at the handle's first QMP_start when the other end's
 * size has arrived, else at its QMP_wait or QMP_is_complete, which then
 * start it. A send larger than its receive fails on both ends
 * (QMP_MEMSIZE_ERR). QMP_change_address works until the data channel is
 * declared (it is bound to its buffer then).
 */
#include "msgmem.h"

#include "../lqcd/lqcd_declared.h"

#include <lqcd_msg.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { HANDLE_MAGIC = 0x514d4848 };
enum { H_SEND = 1, H_RECV, H_MULTI };

struct QMP_msghandle_struct {
    uint32_t magic;
    int kind;
    int owner;              /* the declaring node (core pid) */
    int peer;               /* the other node (core pid) */
    int name;               /* the LQCD buffer name */
    struct QMP_msgmem_struct *mm;
    char *buf;              /* what the channel sends from or receives into */
    char *stage;            /* staged msgmem: the packed bytes */
    void *chan;             /* the LQCD data channel, once both sizes are known */
    struct sizes {
        int64_t out;        /* this end's size, sent to the other end */
        int64_t in;         /* the other end's, when it has arrived */
        struct sizes *next; /* retired: the node's list */
    } *sizes;               /* freed with the handle once both went across (release_channels), else retired */
    void *tell, *hear;      /* the channels of the two sizes */
    int pending;            /* started before the other end's size arrived: the data channel starts when it does */
    int started;            /* started and not yet seen complete */
    int in_multiple;        /* a part of a multiple handle, which frees it */
    QMP_status_t err;
    char error[QMP_ERR_MAX];
    int nparts;
    struct QMP_msghandle_struct **parts;
    void **chans;           /* multiple: the parts' data channels, once all are bound (bound_parts) */
    int in_place;           /* multiple: and none staged (start_in_place) */
};

/* The names of the size channels of data channel `name` between sender
 * and receiver: to the receiver, named as the data channel is in its
 * directory (by the sender), and back to the sender, named in the
 * sender's directory by the receiver. */
enum { SIZE_TO_RECEIVER = 1, SIZE_TO_SENDER = 2 };
static int size_name(int name, int way, int receiver)
{
    if (way == SIZE_TO_SENDER)
        name = (name & ~(0x3fff << 13)) | (receiver & 0x3fff) << 13;
    return way << 29 | name;
}

/* ---- declarations ---- */

static QMP_msghandle_t handle_new(struct qmp_node *n, int kind)
{
    QMP_msghandle_t h = lqcd_calloc_lines(sizeof *h);
    if (!h) {
        qmp_fail(n, QMP_NOMEM_ERR, "QMP: out of memory for a message handle");
        return NULL;
    }
    h->magic = HANDLE_MAGIC;
    h->kind = kind;
    h->owner = n->pid;
    return h;
}

/* A send or receive handle of m with the node of rank `rank` in c. */
static QMP_msghandle_t declare(QMP_comm_t comm, QMP_msgmem_t m, int rank, int channel, int kind, const char *call)
{
    struct qmp_node *n = qmp_node_of(call);
    if (!n)
        return NULL;
    QMP_comm_t c = qmp_comm(n, comm, call);
    if (!c)
        return NULL;
    if (!m || m->magic != MSGMEM_MAGIC) {
        qmp_fail(n, QMP_INVALID_ARG, "%s: not a message memory (QMP_declare_msgmem)", call);
        return NULL;
    }
    if (rank < 0 || rank >= c->size) {
        qmp_fail(n, QMP_NODE_OUTRANGE, "%s: node %d outside 0..%d", call, rank, c->size - 1);
        return NULL;
    }
    QMP_msghandle_t h = handle_new(n, kind);
    if (!h)
        return NULL;
    h->peer = c->members[rank];
    h->name = qmp_channel_name(n, h->peer, channel, kind == H_SEND);
    h->mm = m;
    if (m->staged && !(h->stage = malloc(m->nbytes ? (size_t)m->nbytes : 1))) {
        free(h);
        qmp_fail(n, QMP_NOMEM_ERR, "%s: out of memory", call);
        return NULL;
    }
    h->buf = m->staged ? h->stage : m->blocks[0].at;
    if (!(h->sizes = lqcd_calloc_lines(sizeof *h->sizes))) {
        free(h->stage);
        free(h);
        qmp_fail(n, QMP_NOMEM_ERR, "%s: out of memory", call);
        return NULL;
    }
    h->sizes->out = m->nbytes;
    int receiver = kind == H_SEND ? h->peer : n->pid;
    int out = kind == H_SEND ? SIZE_TO_RECEIVER : SIZE_TO_SENDER;
    int in = kind == H_SEND ? SIZE_TO_SENDER : SIZE_TO_RECEIVER;
    h->tell = declareSendTo(&h->sizes->out, (int)sizeof h->sizes->out, h->peer, size_name(h->name, out, receiver));
    h->hear = h->tell ? declareReceive(&h->sizes->in, (int)sizeof h->sizes->in, size_name(h->name, in, receiver)) : NULL;
    if (!h->hear) {
        qmp_lqcd_failed(n, call);
        h->magic = 0; /* a declared channel may still point into it */
        return NULL;
    }
    startSend(h->tell);
    startReceive(h->hear);
    return h;
}

QMP_msghandle_t QMP_comm_declare_send_to(QMP_comm_t comm, QMP_msgmem_t m, int rem_node_rank, int priority)
{
    (void)priority;
    return declare(comm, m, rem_node_rank, CHANNEL_PLAIN, H_SEND, "QMP_declare_send_to");
}

QMP_msghandle_t QMP_declare_send_to(QMP_msgmem_t m, int rem_node_rank, int priority)
{
    return QMP_comm_declare_send_to(qmp_default(), m, rem_node_rank, priority);
}

QMP_msghandle_t QMP_comm_declare_receive_from(QMP_comm_t comm, QMP_msgmem_t m, int rem_node_rank, int priority)
{
    (void)priority;
    return declare(comm, m, rem_node_rank, CHANNEL_PLAIN, H_RECV, "QMP_declare_receive_from");
}

QMP_msghandle_t QMP_declare_receive_from(QMP_msgmem_t m, int rem_node_rank, int priority)
{
    return QMP_comm_declare_receive_from(qmp_default(), m, rem_node_rank, priority);
}

/* The neighbour of this node along axis in direction dir (its sign), or
 * -1 after an error. */
static int neighbour(QMP_comm_t comm, int axis, int dir, const char *call)
{
    struct qmp_node *n = qmp_node_of(call);
    QMP_comm_t c = n ? qmp_comm(n, comm, call) : NULL;
    if (!c)
        return -1;
    if (!c->declared) {
        qmp_fail(n, QMP_INVALID_TOPOLOGY, "%s: no logical topology is declared", call);
        return -1;
    }
    if (axis < 0 || axis >= c->topo.ndim || dir == 0) {
        qmp_fail(n, QMP_INVALID_ARG, "%s: axis %d (0..%d) direction %d (+1 or -1)", call, axis, c->topo.ndim - 1,
                 dir);
        return -1;
    }
    return c->topo.neigh[dir > 0][axis];
}

/* A relative send in direction + pairs with the receive from direction -
 * at the other end, as QMP's tags do. */
QMP_msghandle_t QMP_comm_declare_send_relative(QMP_comm_t comm, QMP_msgmem_t m, int axis, int dir, int priority)
{
    (void)priority;
    const char *call = "QMP_declare_send_relative";
    int to = neighbour(comm, axis, dir, call);
    return to < 0 ? NULL : declare(comm, m, to, dir > 0 ? CHANNEL_MINUS : CHANNEL_PLUS, H_SEND, call);
}

QMP_msghandle_t QMP_declare_send_relative(QMP_msgmem_t m, int axis, int dir, int priority)
{
    return QMP_comm_declare_send_relative(qmp_default(), m, axis, dir, priority);
}

QMP_msghandle_t QMP_comm_declare_receive_relative(QMP_comm_t comm, QMP_msgmem_t m, int axis, int dir,
                                                  int priority)
{
    (void)priority;
    const char *call = "QMP_declare_receive_relative";
    int from = neighbour(comm, axis, dir, call);
    return from < 0 ? NULL : declare(comm, m, from, dir > 0 ? CHANNEL_PLUS : CHANNEL_MINUS, H_RECV, call);
}

QMP_msghandle_t QMP_declare_receive_relative(QMP_msgmem_t m, int axis, int dir, int priority)
{
    return QMP_comm_declare_receive_relative(qmp_default(), m, axis, dir, priority);
}

/* A handle of the calling node, or NULL after an error. */
static QMP_msghandle_t handle_of(struct qmp_node *n, QMP_msghandle_t h, const char *call)
{
    if (!h || h->magic != HANDLE_MAGIC) {
        qmp_fail(n, QMP_INVALID_ARG, "%s: not a message handle", call);
        return NULL;
    }
    if (h->owner != n->pid) {
        qmp_fail(n, QMP_INVALID_ARG, "%s: a handle of node %d", call, h->owner);
        return NULL;
    }
    return h;
}

static QMP_msghandle_t declare_group(QMP_msghandle_t msgh[], int num, const char *call)
{
    struct qmp_node *n = qmp_node_of(call);
    if (!n)
        return NULL;
    if (!msgh || num < 1) {
        qmp_fail(n, QMP_INVALID_ARG, "%s: %s of %d handles", call, msgh ? "an array" : "a NULL array", num);
        return NULL;
    }
    for (int i = 0; i < num; i++)
        if (!handle_of(n, msgh[i], call))
            return NULL;
        else if (msgh[i]->in_multiple) {
            qmp_fail(n, QMP_INVALID_ARG, "%s: handle %d is part of another multiple handle", call, i);
            return NULL;
        }
    QMP_msghandle_t h = handle_new(n, H_MULTI);
    if (h && !(h->parts = malloc((size_t)num * sizeof *h->parts))) {
        free(h);
        h = NULL;
    }
    if (!h)
        return NULL;
    h->nparts = num;
    for (int i = 0; i < num; i++) {
        h->parts[i] = msgh[i];
        msgh[i]->in_multiple = 1;
    }
    return h;
}

QMP_msghandle_t QMP_declare_multiple(QMP_msghandle_t msgh[], int num)
{
    return declare_group(msgh, num, "QMP_declare_multiple");
}

QMP_msghandle_t QMP_declare_send_recv_pairs(QMP_msghandle_t msgh[], int num)
{
    return declare_group(msgh, num, "QMP_declare_send_recv_pairs");
}

/* Frees what of h's channels nothing can use any more, and the memory
 * they move: the data channel and the staging buffer once no message is
 * in flight through them, the two size channels and the sizes once both
 * sizes went across (until then the other end may still declare its end
 * and read or write them). What may be in use stays until the run ends:
 * a program that declares and frees handles in a loop keeps its memory
 * bounded. */
static void release_channels(struct qmp_node *n, QMP_msghandle_t h)
{
    if (!h->chan || lqcd_free_declared(h->chan) == 0)
        free(h->stage);
    int told = lqcd_free_declared(h->tell) == 0;
    int heard = lqcd_free_declared(h->hear) == 0;
    if (told && heard) {
        free(h->sizes);
    } else if (h->sizes) {
        h->sizes->next = n->retired_sizes;
        n->retired_sizes = h->sizes;
    }
}

static void handle_release(struct qmp_node *n, QMP_msghandle_t h)
{
    for (int i = 0; i < h->nparts; i++)
        handle_release(n, h->parts[i]);
    if (h->kind != H_MULTI)
        release_channels(n, h);
    free(h->parts);
    free(h->chans);
    h->magic = 0;
    free(h);
}

void QMP_free_msghandle(QMP_msghandle_t h)
{
    struct qmp_node *n = qmp_node_of("QMP_free_msghandle");
    if (!n || !handle_of(n, h, "QMP_free_msghandle"))
        return;
    if (h->in_multiple) {
        qmp_fail(n, QMP_INVALID_ARG, "QMP_free_msghandle: part of a multiple handle (free that one)");
        return;
    }
    handle_release(n, h);
}

QMP_status_t QMP_change_address(QMP_msghandle_t msg, void *addr)
{
    const char *call = "QMP_change_address";
    struct qmp_node *n = qmp_node_of(call);
    if (!n)
        return QMP_NOT_INITED;
    if (!handle_of(n, msg, call))
        return n->last;
    if (msg->kind == H_MULTI || msg->mm->staged)
        return qmp_fail(n, QMP_INVALID_ARG, "%s: a multiple handle or a strided memory", call);
    if (!addr && msg->mm->nbytes)
        return qmp_fail(n, QMP_INVALID_ARG, "%s: NULL address", call);
    if (msg->chan)
        return qmp_fail(n, QMP_NOTSUPPORTED, "%s: after the handle's first QMP_start (here its channel is bound "
                        "to its buffer then)", call);
    msg->buf = addr;
    return QMP_SUCCESS;
}

QMP_status_t QMP_change_address_multiple(QMP_msghandle_t msg, void *addr[], int naddr)
{
    const char *call = "QMP_change_address_multiple";
    struct qmp_node *n = qmp_node_of(call);
    if (!n)
        return QMP_NOT_INITED;
    if (!handle_of(n, msg, call))
        return n->last;
    if (msg->kind != H_MULTI || !addr || naddr != msg->nparts)
        return qmp_fail(n, QMP_INVALID_ARG, "%s: a multiple handle of %d parts and as many addresses", call,
                        msg->nparts);
    for (int i = 0; i < naddr; i++) {
        QMP_status_t st = QMP_change_address(msg->parts[i], addr[i]);
        if (st != QMP_SUCCESS)
            return st;
    }
    return QMP_SUCCESS;
}

QMP_status_t QMP_clear_to_send(QMP_msghandle_t mh, QMP_clear_to_send_t cts)
{
    struct qmp_node *n = qmp_node_of("QMP_clear_to_send");
    if (!n)
        return QMP_NOT_INITED;
    if (!handle_of(n, mh, "QMP_clear_to_send"))
        return n->last;
    (void)cts; /* a send waits for its receive anyway: nothing to announce */
    return QMP_SUCCESS;
}

/* ---- operations ---- */

/* Records st (with the node's text) on h too; returns st. */
static QMP_status_t handle_failed(struct qmp_node *n, QMP_msghandle_t h, QMP_status_t st)
{
    h->err = st;
    snprintf(h->error, sizeof h->error, "%s", n->error);
    return st;
}

/* The data channel, declared once the other end's size is known (*ready
 * 0: not yet); QMP_SUCCESS or the failure, recorded. */
static QMP_status_t bind_channel(struct qmp_node *n, QMP_msghandle_t h, int wait, int *ready, const char *call)
{
    *ready = 1;
    if (h->chan)
        return QMP_SUCCESS;
    int heard = wait ? waitFor(h->hear, -1) : testCompletion(h->hear);
    if (heard < 0 || (wait && heard != 1))
        return handle_failed(n, h, qmp_lqcd_failed(n, call));
    if (heard == 0) {
        *ready = 0;
        return QMP_SUCCESS;
    }
    int64_t sent = h->kind == H_SEND ? h->sizes->out : h->sizes->in;
    int64_t room = h->kind == H_SEND ? h->sizes->in : h->sizes->out;
    if (sent > room)
        return handle_failed(n, h, qmp_fail(n, QMP_MEMSIZE_ERR, "%s: a message of %lld bytes from node %d to node "
                                            "%d, whose receive holds %lld", call, (long long)sent,
                                            h->kind == H_SEND ? n->pid : h->peer,
                                            h->kind == H_SEND ? h->peer : n->pid, (long long)room));
    h->chan = h->kind == H_SEND ? declareSendTo(h->buf, (int)sent, h->peer, h->name)
                                : declareReceive(h->buf, (int)sent, h->name);
    if (!h->chan)
        return handle_failed(n, h, qmp_lqcd_failed(n, call));
    return QMP_SUCCESS;
}

/* Starts the data channel (bound). */
static QMP_status_t start_data(struct qmp_node *n, QMP_msghandle_t h, const char *call)
{
    if (h->kind == H_SEND && h->stage)
        msgmem_pack(h->mm, h->stage, h->mm->nbytes);
    if (lqcd_start_declared(h->chan) != 0)
        return handle_failed(n, h, qmp_lqcd_failed(n, call));
    return QMP_SUCCESS;
}

/* A pending start goes ahead when the other end's size is there (wait:
 * waits for it). 1: started, 0: still pending, -1: failed. */
static int go_ahead(struct qmp_node *n, QMP_msghandle_t h, int wait, const char *call)
{
    int ready;
    if (bind_channel(n, h, wait, &ready, call) != QMP_SUCCESS || (ready && start_data(n, h, call) != QMP_SUCCESS)) {
        h->started = h->pending = 0;
        return -1;
    }
    h->pending = !ready;
    return ready;
}

static inline __attribute__((always_inline)) QMP_status_t start_one(struct qmp_node *n, QMP_msghandle_t h)
{
    const char *call = "QMP_start";
    if (h->started)
        return handle_failed(n, h, qmp_fail(n, QMP_SVC_BUSY, "%s: the handle's last start is not complete", call));
    h->err = QMP_SUCCESS;
    h->started = 1;
    if (h->chan && !h->stage) { /* bound, in place: what go_ahead comes to */
        h->pending = 0;
        if (lqcd_start_declared(h->chan) == 0)
            return QMP_SUCCESS;
        h->started = 0;
        return handle_failed(n, h, qmp_lqcd_failed(n, call));
    }
    return go_ahead(n, h, 0, call) < 0 ? h->err : QMP_SUCCESS;
}

/* The data channels of every part of multiple handle h, once all are
 * bound (they stay bound: QMP_change_address refuses then); NULL before,
 * or without memory. */
static void **bound_parts(QMP_msghandle_t h)
{
    if (h->chans)
        return h->chans;
    for (int i = 0; i < h->nparts; i++)
        if (!h->parts[i]->chan)
            return NULL;
    void **chans = malloc((size_t)h->nparts * sizeof *chans);
    h->in_place = chans != NULL;
    for (int i = 0; chans && i < h->nparts; i++) {
        chans[i] = h->parts[i]->chan;
        h->in_place &= !h->parts[i]->stage;
    }
    return h->chans = chans;
}

/* QMP_start of multiple handle h whose parts are bound in place, when
 * none is started: their channels start in one LQCD call, each part as
 * start_one would. 0 when a part is started (start_one answers it). */
static int start_in_place(struct qmp_node *n, QMP_msghandle_t h, QMP_status_t *st)
{
    for (int i = 0; i < h->nparts; i++)
        if (h->parts[i]->started)
            return 0;
    int k = lqcd_start_declared_many(h->chans, h->nparts);
    for (int i = 0; i < k; i++) {
        QMP_msghandle_t p = h->parts[i];
        p->err = QMP_SUCCESS;
        p->started = 1;
        p->pending = 0;
    }
    *st = QMP_SUCCESS;
    if (k < h->nparts) {
        QMP_msghandle_t p = h->parts[k];
        p->err = QMP_SUCCESS;
        p->pending = 0;
        *st = handle_failed(n, h, handle_failed(n, p, qmp_lqcd_failed(n, "QMP_start")));
    }
    return 1;
}

QMP_status_t QMP_start(QMP_msghandle_t h)
{
    struct qmp_node *n = qmp_node_of("QMP_start");
    if (!n)
        return QMP_NOT_INITED;
    if (!handle_of(n, h, "QMP_start"))
        return n->last;
    if (h->kind != H_MULTI)
        return start_one(n, h);
    QMP_status_t st;
    if (h->in_place && start_in_place(n, h, &st))
        return st;
    for (int i = 0; i < h->nparts; i++) {
        st = start_one(n, h->parts[i]);
        if (st != QMP_SUCCESS)
            return handle_failed(n, h, st);
    }
    bound_parts(h); /* for its waits */
    return QMP_SUCCESS;
}

/* A started handle seen complete: a staged receive unpacks what came. */
static void completed(QMP_msghandle_t h)
{
    h->started = 0;
    if (h->kind == H_RECV && h->stage)
        msgmem_unpack(h->mm, h->stage, (size_t)h->sizes->in);
}

/* Waits for one handle (ms < 0: without limit, 0: a look). 1: complete,
 * 0: not yet, -1: failed (recorded). */
static int finish_one(struct qmp_node *n, QMP_msghandle_t h, int ms, const char *call)
{
    if (!h->started) {
        if (h->err != QMP_SUCCESS)
            return -1;
        return 1; /* never started, or seen complete already: nothing to wait for */
    }
    if (h->pending) {
        int go = go_ahead(n, h, ms != 0, call);
        if (go <= 0)
            return go;
    }
    int done = ms == 0 ? lqcd_test_declared(h->chan) : lqcd_wait_declared(&h->chan, 1, ms);
    if (done == 1) {
        completed(h);
        return 1;
    }
    if (done < 0 || (ms != 0 && getErrorNumber() != LQCD_OK)) {
        h->started = 0;
        handle_failed(n, h, qmp_lqcd_failed(n, call));
        return -1;
    }
    return 0;
}

/* Waits for every started part of a multiple handle at once (one LQCD
 * wait for all, which sleeps once); 0 when one failed (not recorded: the
 * parts are then waited for one by one, which says which). */
static int wait_parts(QMP_msghandle_t h)
{
    void *small[32], **chans = h->nparts <= 32 ? small : malloc((size_t)h->nparts * sizeof *chans);
    if (!chans)
        return 0;
    int k = 0;
    for (int i = 0; i < h->nparts; i++)
        if (h->parts[i]->started && !h->parts[i]->pending)
            chans[k++] = h->parts[i]->chan;
    int done = k == 0 || lqcd_wait_declared(chans, k, -1) == 1;
    if (chans != small)
        free(chans);
    if (!done) {
        clearError();
        return 0;
    }
    for (int i = 0; i < h->nparts; i++)
        if (h->parts[i]->started && !h->parts[i]->pending)
            completed(h->parts[i]);
    return 1;
}

/* Waits for multiple handle h when every part is started and bound: one
 * LQCD wait for all its channels. 0 when that is not so, or a part
 * failed (then waited for one by one, which says which). */
static int wait_bound(QMP_msghandle_t h)
{
    void **chans = h->chans;
    if (!chans)
        return 0;
    for (int i = 0; i < h->nparts; i++)
        if (!h->parts[i]->started || h->parts[i]->pending)
            return 0;
    if (lqcd_wait_declared(chans, h->nparts, -1) != 1) {
        clearError();
        return 0;
    }
    for (int i = 0; i < h->nparts; i++)
        completed(h->parts[i]);
    return 1;
}

static QMP_status_t wait_handle(struct qmp_node *n, QMP_msghandle_t h, const char *call)
{
    QMP_status_t st = QMP_SUCCESS;
    if (h->kind != H_MULTI)
        return finish_one(n, h, -1, call) == 1 ? QMP_SUCCESS : h->err;
    if (wait_bound(h))
        return QMP_SUCCESS;
    for (int i = 0; i < h->nparts; i++)
        if (h->parts[i]->started && h->parts[i]->pending && go_ahead(n, h->parts[i], 1, call) < 0 &&
            st == QMP_SUCCESS)
            st = handle_failed(n, h, h->parts[i]->err);
    if (st == QMP_SUCCESS && wait_parts(h))
        return QMP_SUCCESS;
    for (int i = 0; i < h->nparts; i++)
        if (finish_one(n, h->parts[i], -1, call) != 1 && st == QMP_SUCCESS)
            st = handle_failed(n, h, h->parts[i]->err);
    return st;
}

QMP_status_t QMP_wait(QMP_msghandle_t h)
{
    struct qmp_node *n = qmp_node_of("QMP_wait");
    if (!n)
        return QMP_NOT_INITED;
    if (!handle_of(n, h, "QMP_wait"))
        return n->last;
    return wait_handle(n, h, "QMP_wait");
}

QMP_status_t QMP_wait_all(QMP_msghandle_t h[], int num)
{
    struct qmp_node *n = qmp_node_of("QMP_wait_all");
    if (!n)
        return QMP_NOT_INITED;
    if (!h || num < 0)
        return qmp_fail(n, QMP_INVALID_ARG, "QMP_wait_all: %d handles", num);
    QMP_status_t st = QMP_SUCCESS;
    for (int i = 0; i < num; i++) {
        QMP_status_t one = handle_of(n, h[i], "QMP_wait_all") ? wait_handle(n, h[i], "QMP_wait_all") : n->last;
        if (st == QMP_SUCCESS)
            st = one;
    }
    return st;
}

QMP_bool_t QMP_is_complete(QMP_msghandle_t h)
{
    struct qmp_node *n = qmp_node_of("QMP_is_complete");
    if (!n || !handle_of(n, h, "QMP_is_complete"))
        return QMP_FALSE;
    if (h->kind != H_MULTI)
        return finish_one(n, h, 0, "QMP_is_complete") == 1 ? QMP_TRUE : QMP_FALSE;
    int all = 1;
    for (int i = 0; i < h->nparts; i++)
        all &= finish_one(n, h->parts[i], 0, "QMP_is_complete") == 1;
    return all ? QMP_TRUE : QMP_FALSE;
}

QMP_status_t QMP_get_error_number(QMP_msghandle_t mh)
{
    struct qmp_node *n = qmp_self();
    if (!mh)
        return n ? n->last : QMP_NOT_INITED;
    return mh->magic == HANDLE_MAGIC ? mh->err : QMP_INVALID_ARG;
}

const char *QMP_get_error_string(QMP_msghandle_t mh)
{
    struct qmp_node *n = qmp_self();
    if (!mh)
        return n && n->last != QMP_SUCCESS ? n->error : QMP_error_string(n ? n->last : QMP_NOT_INITED);
    if (mh->magic != HANDLE_MAGIC)
        return "not a message handle";
    return mh->err != QMP_SUCCESS ? mh->error : QMP_error_string(QMP_SUCCESS);
}
