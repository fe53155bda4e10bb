/*
 * The QMP face (include/qmp.h): what its files share.
 *
 * A node is a core of a BSPlib section without bsp_init (faces/bsplib):
 * QMP_init_msg_passing on the program's thread starts the section and
 * becomes node 0 (under mpirun: the rank's first node); the other cores
 * run main from its start in a private copy of the program (node_load.c)
 * and join it in their own QMP_init_msg_passing. Each node's QMP state is
 * a struct qmp_node of its own, indexed by node number (the core's pid).
 * Messages are LQCD channels (lqcd_msg.h); collectives are the LQCD
 * collectives when they span every node, else gathers over channels
 * (collectives.c).
 */
#ifndef EBSP_QMP_FACE_H
#define EBSP_QMP_FACE_H

#include "../../capi/faces.h"

#include <qmp.h>

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum { QMP_DIMS_MAX = 16, QMP_ERR_MAX = 320 };

/* A logical (or allocated) grid over the nodes of a communicator: node
 * numbers are lexicographic with map[0] varying fastest (QMP's rule). */
struct qmp_topo {
    int ndim;
    int dims[QMP_DIMS_MAX];
    int map[QMP_DIMS_MAX]; /* the order of the dimensions in the numbering */
    int coords[QMP_DIMS_MAX]; /* this node's */
    int neigh[2][QMP_DIMS_MAX]; /* [0]: -1 direction, [1]: +1 direction */
};

/* Channels a communicator's gathers use, one set per message size. */
struct qmp_gather;

enum { COMM_MAGIC = 0x514d5043 };

struct QMP_comm_struct {
    uint32_t magic;
    int size, rank;     /* nodes, and this node's number in it */
    int *members;       /* [rank]: the node (core pid) */
    int color, key, ncolors;
    int declared;       /* a logical topology is declared */
    struct qmp_topo topo;
    struct qmp_gather *gathers;
};

/* One node's QMP state (the calling core's: qmp_self). */
struct qmp_node {
    int pid;
    int inited, finalized;
    QMP_comm_t allocated, job, deflt;
    QMP_status_t last;          /* its last error */
    char error[QMP_ERR_MAX];    /* in words */
    int verbose, proflevel;
    double total_time;
    int *geom, geomlen, *amap, amaplen, *lmap, lmaplen; /* -qmp-geom, -qmp-alloc-map, -qmp-logic-map */
    int layout_ndim;
    int layout_dims[QMP_DIMS_MAX], subgrid[QMP_DIMS_MAX];
    int subgrid_sites;
    struct qmp_count *counts;   /* channels declared to or from each node (messages.c) */
    int ncounts, counts_cap;
    struct sizes *retired_sizes; /* of freed handles, whose size channels may still be used (messages.c) */
    struct qmp_lines *lines;     /* under mpirun: printed lines forwarded to node 0 (lines.c) */
};

/* The calling node, or NULL (not a node: reported as QMP_NOT_INITED by the
 * callers). */
struct qmp_node *qmp_self(void);
/* The calling node when QMP is initialised on it; else sets nothing and
 * returns NULL (call names the caller for the message). */
struct qmp_node *qmp_node_of(const char *call);
/* Records code and its text (printf-style) as the node's last error and
 * returns code; with QMP_verbose on, prints it through QMP_error. */
QMP_status_t qmp_fail(struct qmp_node *n, QMP_status_t code, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
/* The number of nodes of the job (every rank's), 0 before the first
 * QMP_init_msg_passing; qmp_nodes_make makes their table (0: no memory). */
int qmp_nodes(void);
int qmp_nodes_make(int total);
/* "QMP m<node>,n<nodes>@<host><tag>: <text>\n" (malloc'd, its length in
 * *len; NULL without memory); *textlen: the text's length. */
char *qmp_tagged_line(const char *tag, const char *format, va_list ap, size_t *len, int *textlen);
/* Writes that line to stream in one piece; returns the length of the
 * text, as QMP does. */
int qmp_print_tagged(FILE *stream, const char *tag, const char *format, va_list ap);
/* comm when it is a communicator, else NULL after an error recorded for
 * call; qmp_default: the calling node's default communicator (NULL before
 * QMP_init_msg_passing), what the calls without a communicator use. */
QMP_comm_t qmp_comm(struct qmp_node *n, QMP_comm_t comm, const char *call);
QMP_comm_t qmp_default(void);

/* ---- the nodes' programs (node_load.c) ---- */

/* What bsplib.c runs on the other cores: the node's copy of main. */
int qmp_node_main(int argc, char **argv);
/* The standard input of copy h (dlopen's handle) reads nothing (node_stdin.c). */
void qmp_node_quiet_stdin(void *h);

/* ---- communicators (comm.c) ---- */

/* A communicator of the given members (copied), this node being rank. */
QMP_comm_t qmp_comm_new(const int *members, int size, int rank, int color, int key, int ncolors);
void qmp_comm_release(QMP_comm_t c);
/* Sets topo for comm from dims, map (NULL: identity): every member's
 * coordinates and neighbours. */
QMP_status_t qmp_topo_set(struct qmp_node *n, QMP_comm_t comm, const char *call, const int *dims, int ndim,
                          const int *map, int nmap);
void qmp_topo_coords(const struct qmp_topo *t, int node, int *coords);
int qmp_topo_node(const struct qmp_topo *t, const int *coords);

/* ---- channels (messages.c) ---- */

/* The LQCD buffer name of the k-th channel of kind between this node and
 * peer (kind: QMP's MPI tag class, or CHANNEL_GATHER); *sending picks the
 * counter. */
enum { CHANNEL_PLAIN = 0, CHANNEL_MINUS = 1, CHANNEL_PLUS = 2, CHANNEL_GATHER = 3 };
int qmp_channel_name(struct qmp_node *n, int peer, int kind, int sending);
/* The LQCD error after a call, as a QMP status with the text recorded. */
QMP_status_t qmp_lqcd_failed(struct qmp_node *n, const char *call);

/* ---- gathers (collectives.c) ---- */

/* Every member's nbytes at mine, in rank order, into all (size * nbytes). */
QMP_status_t qmp_allgather(struct qmp_node *n, QMP_comm_t c, const char *call, const void *mine, size_t nbytes,
                           void *all);
void qmp_gathers_free(QMP_comm_t c);

/* ---- printed lines under mpirun (lines.c) ---- */

/* At QMP_init: a node of another rank than 0 declares its channel to node
 * 0, node 0 its receives from them (0: no memory or no channel). */
int qmp_lines_start(struct qmp_node *n);
/* On a node of another rank: sends the line to node 0 (1); else 0. */
int qmp_lines_forward(struct qmp_node *n, const char *line, size_t len);
/* On node 0: prints the lines that arrived. */
void qmp_lines_print_arrived(struct qmp_node *n);
/* At QMP_finalize_msg_passing: the end mark, sent / every node's awaited. */
void qmp_lines_finish(struct qmp_node *n);

/* ---- time (print.c) ---- */
double qmp_now(void);

#endif
