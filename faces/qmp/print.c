/*
 * Output, errors in words, time and version. The printing calls print
 * whole lines with QMP's prefix (qmp_print_tagged, state.c: one write
 * under the stream's lock, so no two nodes' lines mix; under mpirun the
 * other ranks' lines to standard output go through node 0, lines.c).
 */
#define _GNU_SOURCE
#include "qmp_face.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *const status_text[] = {
    [QMP_ERROR - QMP_ERROR] = "QMP: general error",
    [QMP_NOT_INITED - QMP_ERROR] = "QMP: QMP is not initialised on this node",
    [QMP_RTENV_ERR - QMP_ERROR] = "QMP: the run-time environment cannot be set up",
    [QMP_CPUINFO_ERR - QMP_ERROR] = "QMP: cannot get the CPU information",
    [QMP_NODEINFO_ERR - QMP_ERROR] = "QMP: cannot get the node information",
    [QMP_NOMEM_ERR - QMP_ERROR] = "QMP: out of memory",
    [QMP_MEMSIZE_ERR - QMP_ERROR] = "QMP: the message sizes do not match",
    [QMP_HOSTNAME_ERR - QMP_ERROR] = "QMP: cannot get the host name",
    [QMP_INITSVC_ERR - QMP_ERROR] = "QMP: the communication service cannot start",
    [QMP_TOPOLOGY_EXISTS - QMP_ERROR] = "QMP: a logical topology is declared already",
    [QMP_CH_TIMEOUT - QMP_ERROR] = "QMP: channel timed out",
    [QMP_NOTSUPPORTED - QMP_ERROR] = "QMP: not supported",
    [QMP_SVC_BUSY - QMP_ERROR] = "QMP: the operation is still in progress",
    [QMP_BAD_MESSAGE - QMP_ERROR] = "QMP: bad message",
    [QMP_INVALID_ARG - QMP_ERROR] = "QMP: invalid argument",
    [QMP_INVALID_TOPOLOGY - QMP_ERROR] = "QMP: invalid or undeclared logical topology",
    [QMP_NONEIGHBOR_INFO - QMP_ERROR] = "QMP: no neighbour information",
    [QMP_MEMSIZE_TOOBIG - QMP_ERROR] = "QMP: memory size too large",
    [QMP_BAD_MEMORY - QMP_ERROR] = "QMP: bad memory",
    [QMP_NO_PORTS - QMP_ERROR] = "QMP: no more ports",
    [QMP_NODE_OUTRANGE - QMP_ERROR] = "QMP: node number out of range",
    [QMP_CHDEF_ERR - QMP_ERROR] = "QMP: channel definition error",
    [QMP_MEMUSED_ERR - QMP_ERROR] = "QMP: memory in use",
    [QMP_INVALID_OP - QMP_ERROR] = "QMP: invalid operation",
    [QMP_TIMEOUT - QMP_ERROR] = "QMP: timed out",
};

const char *QMP_error_string(QMP_status_t code)
{
    struct qmp_node *n = qmp_self();
    if (code == QMP_SUCCESS)
        return "QMP: success";
    /* the node's own last error, in the words of the call that failed */
    if (n && code == n->last && n->error[0])
        return n->error;
    if (code >= QMP_ERROR && code < QMP_MAX_STATUS && status_text[code - QMP_ERROR])
        return status_text[code - QMP_ERROR];
    return "QMP: unknown error code";
}

int QMP_verbose(int level)
{
    struct qmp_node *n = qmp_self();
    if (!n)
        return 0;
    int old = n->verbose;
    n->verbose = level;
    return old;
}

int QMP_profcontrol(int level)
{
    struct qmp_node *n = qmp_self();
    if (!n)
        return 0;
    int old = n->proflevel;
    n->proflevel = level;
    return old;
}

/* A line for standard output: under mpirun a node of another rank sends
 * it to node 0 (lines.c), which prints those that arrived after its own. */
static int print_out(FILE *stream, const char *tag, const char *format, va_list ap)
{
    struct qmp_node *n = qmp_self();
    if (stream != stdout || !n || !n->lines)
        return qmp_print_tagged(stream, tag, format, ap);
    size_t len;
    int textlen;
    char *line = qmp_tagged_line(tag, format, ap, &len, &textlen);
    if (!line)
        return -1;
    if (!qmp_lines_forward(n, line, len)) {
        flockfile(stdout);
        fwrite(line, 1, len, stdout);
        funlockfile(stdout);
        qmp_lines_print_arrived(n);
    }
    free(line);
    return textlen;
}

int QMP_printf(const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    int len = print_out(stdout, "", format, ap);
    va_end(ap);
    return len;
}

int QMP_fprintf(FILE *stream, const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    int len = print_out(stream ? stream : stdout, "", format, ap);
    va_end(ap);
    return len;
}

int QMP_info(const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    int len = print_out(stdout, " info", format, ap);
    va_end(ap);
    return len;
}

int QMP_error(const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    int len = qmp_print_tagged(stderr, " error", format, ap);
    va_end(ap);
    return len;
}

double qmp_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double QMP_time(void)
{
    return qmp_now();
}

void QMP_reset_total_qmp_time(void)
{
    struct qmp_node *n = qmp_self();
    if (n)
        n->total_time = 0;
}

double QMP_get_total_qmp_time(void)
{
    struct qmp_node *n = qmp_self();
    return n ? n->total_time : 0;
}

const char *QMP_version_str(void)
{
    return "2.5.1";
}

int QMP_version_int(void)
{
    return 2005001;
}
