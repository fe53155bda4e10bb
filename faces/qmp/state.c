/*
 * The nodes' state, the calling node, errors and tagged lines: what
 * every other file of the face calls (this one calls none of them).
 */
#define _GNU_SOURCE
#include "qmp_face.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Every node's state, by node number; made by the first node of this
 * process before the section starts, kept until the process ends (a
 * program may ask QMP_is_initialized after QMP_finalize_msg_passing). */
static struct qmp_node *nodes;
static int nnodes;

int qmp_nodes(void)
{
    return nnodes;
}

struct qmp_node *qmp_self(void)
{
    struct ebsp_core *self = ebsp_self;
    if (!self || !nodes || self->pid < 0 || self->pid >= nnodes)
        return NULL;
    return &nodes[self->pid];
}

struct qmp_node *qmp_node_of(const char *call)
{
    (void)call;
    struct qmp_node *n = qmp_self();
    return n && n->inited && !n->finalized ? n : NULL;
}

/* QMP_error's line of text. */
static void error_line(const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    qmp_print_tagged(stderr, " error", format, ap);
    va_end(ap);
}

QMP_status_t qmp_fail(struct qmp_node *n, QMP_status_t code, const char *format, ...)
{
    if (!n)
        return code;
    va_list ap;
    va_start(ap, format);
    vsnprintf(n->error, sizeof n->error, format, ap);
    va_end(ap);
    n->last = code;
    if (n->verbose > 0)
        error_line("%s", n->error);
    return code;
}

int qmp_nodes_make(int total)
{
    if (nodes)
        return 1;
    nodes = calloc((size_t)total, sizeof *nodes);
    if (!nodes)
        return 0;
    nnodes = total;
    return 1;
}

QMP_comm_t qmp_comm(struct qmp_node *n, QMP_comm_t comm, const char *call)
{
    if (!comm || comm->magic != COMM_MAGIC) {
        qmp_fail(n, QMP_INVALID_ARG, "%s: %s", call, comm ? "not a communicator" : "the communicator is NULL");
        return NULL;
    }
    return comm;
}

QMP_comm_t qmp_default(void)
{
    struct qmp_node *n = qmp_self();
    return n ? n->deflt : NULL;
}

char *qmp_tagged_line(const char *tag, const char *format, va_list ap, size_t *len, int *textlen)
{
    static char host[256];
    if (!host[0] && gethostname(host, sizeof host - 1) != 0)
        strcpy(host, "localhost");
    struct qmp_node *n = qmp_self();
    char *text = NULL, *line = NULL;
    *textlen = vasprintf(&text, format, ap);
    if (*textlen < 0)
        return NULL;
    int total = asprintf(&line, "QMP m%d,n%d@%s%s: %s\n", n ? n->pid : 0, nnodes ? nnodes : 1, host, tag, text);
    free(text);
    if (total < 0)
        return NULL;
    *len = (size_t)total;
    return line;
}

int qmp_print_tagged(FILE *stream, const char *tag, const char *format, va_list ap)
{
    size_t len;
    int textlen;
    char *line = qmp_tagged_line(tag, format, ap, &len, &textlen);
    if (!line)
        return -1;
    flockfile(stream);
    fwrite(line, 1, len, stream);
    funlockfile(stream);
    if (stream == stderr)
        fflush(stream);
    free(line);
    return textlen;
}

