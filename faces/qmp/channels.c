/*
 * LQCD channel names for the face's messages and gathers, and LQCD errors
 * as QMP statuses.
 */
#include "qmp_face.h"

#include <lqcd_msg.h>

#include <stdlib.h>

struct qmp_count {
    int peer, kind, sending, count;
};

int qmp_channel_name(struct qmp_node *n, int peer, int kind, int sending)
{
    int i = 0;
    while (i < n->ncounts &&
           (n->counts[i].peer != peer || n->counts[i].kind != kind || n->counts[i].sending != sending))
        i++;
    if (i == n->ncounts) {
        if (n->ncounts == n->counts_cap) {
            int cap = n->counts_cap ? 2 * n->counts_cap : 16;
            struct qmp_count *more = realloc(n->counts, (size_t)cap * sizeof *more);
            if (!more)
                return -1;
            n->counts = more;
            n->counts_cap = cap;
        }
        n->counts[n->ncounts++] = (struct qmp_count){peer, kind, sending, 0};
    }
    int k = n->counts[i].count++;
    int sender = sending ? n->pid : peer;
    return kind << 27 | (sender & 0x3fff) << 13 | (k & 0x1fff);
}

QMP_status_t qmp_lqcd_failed(struct qmp_node *n, const char *call)
{
    int code = getErrorNumber();
    const char *text = getErrorString();
    clearError();
    QMP_status_t st = QMP_ERROR;
    switch (code) {
    case LQCD_ERR_ARG: st = QMP_INVALID_ARG; break;
    case LQCD_ERR_HOST: st = QMP_NODE_OUTRANGE; break;
    case LQCD_ERR_SIZE: st = QMP_MEMSIZE_ERR; break;
    case LQCD_ERR_BUSY: st = QMP_SVC_BUSY; break;
    case LQCD_ERR_TIMEOUT: st = QMP_TIMEOUT; break;
    case LQCD_ERR_NOMEM: st = QMP_NOMEM_ERR; break;
    case LQCD_ERR_NOT_STARTED: st = QMP_INVALID_OP; break;
    default: break;
    }
    return qmp_fail(n, st, "%s: %s", call, text ? text : "error");
}

