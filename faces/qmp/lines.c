/*
 * QMP's printed lines under mpirun. Open MPI forwards each rank's output
 * in pieces of whatever its reads took, so the lines of two ranks can mix
 * even when each was written whole. The nodes of the other ranks send
 * their lines to node 0 instead, each over an LQCD channel of its own
 * (chunks of LINE_CHUNK bytes), and node 0 prints them whole: whenever it
 * prints a line itself, and all that is left at QMP_finalize_msg_passing,
 * where every node sends an end mark. Node 0's rank prints its nodes' lines
 * itself. In one process nothing here is used.
 */
#define _GNU_SOURCE
#include "qmp_face.h"

#include <lqcd_msg.h>

#include <stdlib.h>
#include <string.h>

enum { LINE_CHUNK = 1016, CHUNK_MORE = 1, CHUNK_END = 2 };

struct chunk {
    int32_t len, flags;
    char text[LINE_CHUNK];
};

/* A node's end of the forwarding: a sender's channel, or node 0's
 * receives (one per node of the other ranks) and the lines they build. */
struct qmp_lines {
    void *send;
    int sent; /* a send was started: wait for it before the next */
    struct chunk out;
    int nodes;
    void **recv;
    struct chunk *in;
    char **line;    /* [node]: the line so far */
    size_t *length; /* [node] */
    int *ended;     /* [node]: its end mark arrived */
};

/* Whether the node's lines go to node 0. */
static int forwarded(void)
{
    return ebsp_world_ranks > 1 && ebsp_world_rank != 0;
}

int qmp_lines_start(struct qmp_node *n)
{
    if (ebsp_world_ranks <= 1 || (n->pid != 0 && !forwarded()))
        return 1;
    struct qmp_lines *l = n->lines = calloc(1, sizeof *l);
    if (!l)
        return 0;
    if (forwarded()) {
        l->send = declareSendTo(&l->out, (int)sizeof l->out, 0, qmp_channel_name(n, 0, CHANNEL_GATHER, 1));
        return l->send != NULL;
    }
    int total = qmp_nodes();
    l->nodes = total;
    l->recv = calloc((size_t)total, sizeof *l->recv);
    l->in = calloc((size_t)total, sizeof *l->in);
    l->line = calloc((size_t)total, sizeof *l->line);
    l->length = calloc((size_t)total, sizeof *l->length);
    l->ended = calloc((size_t)total, sizeof *l->ended);
    if (!l->recv || !l->in || !l->line || !l->length || !l->ended)
        return 0;
    for (int pid = ebsp_world_per_rank; pid < total; pid++) { /* the nodes of the other ranks */
        l->recv[pid] = declareReceive(&l->in[pid], (int)sizeof l->in[pid],
                                      qmp_channel_name(n, pid, CHANNEL_GATHER, 0));
        if (!l->recv[pid])
            return 0;
        startReceive(l->recv[pid]);
    }
    return 1;
}

/* Sends one chunk to node 0, after the last one left. */
static void send_chunk(struct qmp_lines *l, const char *text, size_t len, int flags)
{
    if (l->sent && waitFor(l->send, -1) != 1)
        clearError();
    l->out.len = (int32_t)len;
    l->out.flags = flags;
    memcpy(l->out.text, text, len);
    startSend(l->send);
    l->sent = 1;
}

int qmp_lines_forward(struct qmp_node *n, const char *line, size_t len)
{
    if (!n || !forwarded() || !n->lines || !n->lines->send)
        return 0;
    do {
        size_t part = len < LINE_CHUNK ? len : LINE_CHUNK;
        send_chunk(n->lines, line, part, part < len ? CHUNK_MORE : 0);
        line += part;
        len -= part;
    } while (len > 0);
    return 1;
}

/* Node 0 takes in what node pid sent; 1 when it was its end mark. */
static int take_chunk(struct qmp_lines *l, int pid)
{
    const struct chunk *c = &l->in[pid];
    size_t len = c->len > 0 && c->len <= LINE_CHUNK ? (size_t)c->len : 0;
    char *more = realloc(l->line[pid], l->length[pid] + len + 1);
    if (more) {
        memcpy(more + l->length[pid], c->text, len);
        l->line[pid] = more;
        l->length[pid] += len;
    }
    if (!(c->flags & CHUNK_MORE) && l->length[pid]) {
        flockfile(stdout);
        fwrite(l->line[pid], 1, l->length[pid], stdout);
        funlockfile(stdout);
        l->length[pid] = 0;
    }
    int end = c->flags & CHUNK_END;
    if (end)
        l->ended[pid] = 1;
    else
        startReceive(l->recv[pid]);
    return end;
}

void qmp_lines_print_arrived(struct qmp_node *n)
{
    struct qmp_lines *l = n ? n->lines : NULL;
    if (!l || !l->recv)
        return;
    for (int pid = ebsp_world_per_rank; pid < l->nodes; pid++)
        while (!l->ended[pid] && testCompletion(l->recv[pid]) == 1)
            if (take_chunk(l, pid))
                break;
    clearError();
}

void qmp_lines_finish(struct qmp_node *n)
{
    struct qmp_lines *l = n ? n->lines : NULL;
    if (!l)
        return;
    if (l->send) {
        send_chunk(l, "", 0, CHUNK_END);
        if (waitFor(l->send, -1) != 1)
            clearError();
        return;
    }
    for (int pid = ebsp_world_per_rank; pid < l->nodes; pid++)
        while (!l->ended[pid] && waitFor(l->recv[pid], -1) == 1)
            take_chunk(l, pid);
    clearError();
    fflush(stdout);
}
