/*
 * qmp.h -- the QCD Message Passing API (QMP 2.5, USQCD) on the emulated
 * cores of libebsp.
 *
 * Declares the C interface of QMP 2.5.x (types, constants and the 130
 * calls) so that QMP programs build unmodified:
 *     gcc prog.c $(pkg-config --cflags --libs qmp)
 *
 * A QMP node is a core. In one process the program runs on the cores of
 * EBSP_MESH (4x4 = 16 unless set; `bsprun -n P ./prog` sets it): every
 * node runs main, with globals of its own (the library loads a private
 * copy of the program for each node but the first); under mpirun the
 * nodes are ranks x EBSP_RANK_CORES. Messages and collectives run on the
 * engine of the LQCD API (lqcd_msg.h): global sums add the nodes'
 * contributions in node order, so they have the same bits in every layout.
 * README.md, section "QMP programs", says what differs from QMP over MPI.
 */
#ifndef EBSP_QMP_H
#define EBSP_QMP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* QMP's boolean. */
typedef int QMP_bool_t;
#define QMP_TRUE ((QMP_bool_t)1)
#define QMP_FALSE ((QMP_bool_t)0)

/* What a call reports (QMP_error_string names each). */
typedef enum QMP_status {
    QMP_SUCCESS = 0,
    QMP_ERROR = 0x1001,
    QMP_NOT_INITED,
    QMP_RTENV_ERR,
    QMP_CPUINFO_ERR,
    QMP_NODEINFO_ERR,
    QMP_NOMEM_ERR,
    QMP_MEMSIZE_ERR,
    QMP_HOSTNAME_ERR,
    QMP_INITSVC_ERR,
    QMP_TOPOLOGY_EXISTS,
    QMP_CH_TIMEOUT,
    QMP_NOTSUPPORTED,
    QMP_SVC_BUSY,
    QMP_BAD_MESSAGE,
    QMP_INVALID_ARG,
    QMP_INVALID_TOPOLOGY,
    QMP_NONEIGHBOR_INFO,
    QMP_MEMSIZE_TOOBIG,
    QMP_BAD_MEMORY,
    QMP_NO_PORTS,
    QMP_NODE_OUTRANGE,
    QMP_CHDEF_ERR,
    QMP_MEMUSED_ERR,
    QMP_INVALID_OP,
    QMP_TIMEOUT,
    QMP_MAX_STATUS
} QMP_status_t;

/* The interconnect (QMP_get_msg_passing_type): a grid here. */
typedef enum QMP_ictype {
    QMP_SWITCH = 0,
    QMP_GRID = 1,
    QMP_MESH = 1,
    QMP_FATTREE = 2
} QMP_ictype_t;

typedef enum QMP_thread_level {
    QMP_THREAD_SINGLE,
    QMP_THREAD_FUNNELED,
    QMP_THREAD_SERIALIZED,
    QMP_THREAD_MULTIPLE
} QMP_thread_level_t;

typedef enum QMP_clear_to_send {
    QMP_CTS_DISABLED = -1,
    QMP_CTS_NOT_READY = 0,
    QMP_CTS_READY = 1
} QMP_clear_to_send_t;

/* QMP_allocate_aligned_memory: alignments and flags. */
#define QMP_ALIGN_ANY 0
#define QMP_ALIGN_DEFAULT 64
#define QMP_MEM_NONCACHE 0x01
#define QMP_MEM_COMMS 0x02
#define QMP_MEM_FAST 0x04
#define QMP_MEM_DEFAULT (QMP_MEM_COMMS | QMP_MEM_FAST)

/* Opaque objects. */
typedef struct QMP_mem_struct QMP_mem_t;
typedef struct QMP_msgmem_struct *QMP_msgmem_t;
typedef struct QMP_comm_struct *QMP_comm_t;
typedef struct QMP_msghandle_struct *QMP_msghandle_t;

/* QMP_binary_reduction's operator: inout = inout (op) in, on whole buffers. */
typedef void (*QMP_binary_func)(void *inout, void *in);

#ifdef __cplusplus
extern "C" {
#endif

/* ---- starting and ending ---- */

/* Every node calls it first; -qmp-* arguments are taken out of argv. */
QMP_status_t QMP_init_msg_passing(int *argc, char ***argv, QMP_thread_level_t required,
                                  QMP_thread_level_t *provided);
QMP_bool_t QMP_is_initialized(void);
void QMP_finalize_msg_passing(void);
/* Ends every node, the process's exit status error_code. */
void QMP_abort(int error_code);
void QMP_abort_string(int error_code, char *message);

/* ---- communicators ---- */

QMP_comm_t QMP_comm_get_allocated(void);
QMP_status_t QMP_comm_set_allocated(QMP_comm_t comm);
QMP_comm_t QMP_comm_get_job(void);
QMP_status_t QMP_comm_set_job(QMP_comm_t comm);
QMP_comm_t QMP_comm_get_default(void);
QMP_status_t QMP_comm_set_default(QMP_comm_t comm);
/* Collective over comm: nodes of one color form a communicator, numbered
 * by key (then by their number in comm). */
QMP_status_t QMP_comm_split(QMP_comm_t comm, int color, int key, QMP_comm_t *newcomm);
QMP_status_t QMP_comm_free(QMP_comm_t comm);
int QMP_comm_get_number_of_colors(QMP_comm_t comm);
int QMP_comm_get_color(QMP_comm_t comm);
int QMP_comm_get_key(QMP_comm_t comm);
/* There is no MPI communicator underneath: QMP_NOTSUPPORTED. */
QMP_status_t QMP_get_hidden_comm(QMP_comm_t comm, void **hiddencomm);

/* ---- the machine ---- */

QMP_ictype_t QMP_get_msg_passing_type(void);
int QMP_get_number_of_nodes(void);
int QMP_comm_get_number_of_nodes(QMP_comm_t comm);
int QMP_get_node_number(void);
int QMP_comm_get_node_number(QMP_comm_t comm);
int QMP_get_number_of_jobs(void);
int QMP_get_job_number(void);
int QMP_get_number_of_job_geometry_dimensions(void);
const int *QMP_get_job_geometry(void);
QMP_bool_t QMP_is_primary_node(void);
QMP_bool_t QMP_comm_is_primary_node(QMP_comm_t comm);
int QMP_get_allocated_number_of_dimensions(void);
const int *QMP_get_allocated_dimensions(void);
const int *QMP_get_allocated_coordinates(void);
int QMP_io_node(int node);
int QMP_master_io_node(void);

/* ---- the logical topology ---- */

QMP_status_t QMP_declare_logical_topology(const int dims[], int ndim);
QMP_status_t QMP_comm_declare_logical_topology(QMP_comm_t comm, const int dims[], int ndim);
QMP_status_t QMP_declare_logical_topology_map(const int dims[], int ndim, const int map[], int mapdim);
QMP_status_t QMP_comm_declare_logical_topology_map(QMP_comm_t comm, const int dims[], int ndim,
                                                   const int map[], int mapdim);
QMP_bool_t QMP_logical_topology_is_declared(void);
QMP_bool_t QMP_comm_logical_topology_is_declared(QMP_comm_t comm);
int QMP_get_logical_number_of_dimensions(void);
int QMP_comm_get_logical_number_of_dimensions(QMP_comm_t comm);
const int *QMP_get_logical_dimensions(void);
const int *QMP_comm_get_logical_dimensions(QMP_comm_t comm);
const int *QMP_get_logical_coordinates(void);
const int *QMP_comm_get_logical_coordinates(QMP_comm_t comm);
/* The caller frees the array (free). */
int *QMP_get_logical_coordinates_from(int node);
int *QMP_comm_get_logical_coordinates_from(QMP_comm_t comm, int node);
void QMP_get_logical_coordinates_from2(int coords[], int node);
void QMP_comm_get_logical_coordinates_from2(QMP_comm_t comm, int coords[], int node);
int QMP_get_node_number_from(const int coordinates[]);
int QMP_comm_get_node_number_from(QMP_comm_t comm, const int coordinates[]);

/* ---- the lattice over the nodes ---- */

QMP_status_t QMP_layout_grid(const int dimensions[], int ndims);
const int *QMP_get_subgrid_dimensions(void);
int QMP_get_number_of_subgrid_sites(void);

/* ---- memory ---- */

QMP_mem_t *QMP_allocate_memory(size_t nbytes);
QMP_mem_t *QMP_allocate_aligned_memory(size_t nbytes, size_t alignment, int flags);
void *QMP_get_memory_pointer(QMP_mem_t *mem);
void QMP_free_memory(QMP_mem_t *mem);
QMP_msgmem_t QMP_declare_msgmem(const void *mem, size_t nbytes);
QMP_msgmem_t QMP_declare_strided_msgmem(void *base, size_t blksize, int nblocks, ptrdiff_t stride);
QMP_msgmem_t QMP_declare_strided_array_msgmem(void *base[], size_t blksize[], int nblocks[],
                                              ptrdiff_t stride[], int num);
QMP_msgmem_t QMP_declare_indexed_msgmem(void *base, int blocklen[], int index[], int elemsize,
                                        int count);
void QMP_free_msgmem(QMP_msgmem_t m);

/* ---- messages ---- */

QMP_msghandle_t QMP_declare_receive_relative(QMP_msgmem_t m, int axis, int dir, int priority);
QMP_msghandle_t QMP_comm_declare_receive_relative(QMP_comm_t comm, QMP_msgmem_t m, int axis, int dir,
                                                  int priority);
QMP_msghandle_t QMP_declare_send_relative(QMP_msgmem_t m, int axis, int dir, int priority);
QMP_msghandle_t QMP_comm_declare_send_relative(QMP_comm_t comm, QMP_msgmem_t m, int axis, int dir,
                                               int priority);
QMP_msghandle_t QMP_declare_send_to(QMP_msgmem_t m, int rem_node_rank, int priority);
QMP_msghandle_t QMP_comm_declare_send_to(QMP_comm_t comm, QMP_msgmem_t m, int rem_node_rank,
                                         int priority);
QMP_msghandle_t QMP_declare_receive_from(QMP_msgmem_t m, int rem_node_rank, int priority);
QMP_msghandle_t QMP_comm_declare_receive_from(QMP_comm_t comm, QMP_msgmem_t m, int rem_node_rank,
                                              int priority);
QMP_status_t QMP_change_address(QMP_msghandle_t msg, void *addr);
QMP_status_t QMP_change_address_multiple(QMP_msghandle_t msg, void *addr[], int naddr);
void QMP_free_msghandle(QMP_msghandle_t h);
/* One handle that starts and waits for num others (which it takes over). */
QMP_msghandle_t QMP_declare_multiple(QMP_msghandle_t msgh[], int num);
QMP_msghandle_t QMP_declare_send_recv_pairs(QMP_msghandle_t msgh[], int num);
QMP_status_t QMP_clear_to_send(QMP_msghandle_t mh, QMP_clear_to_send_t cts);
QMP_status_t QMP_start(QMP_msghandle_t h);
QMP_status_t QMP_wait(QMP_msghandle_t h);
QMP_status_t QMP_wait_all(QMP_msghandle_t h[], int num);
QMP_bool_t QMP_is_complete(QMP_msghandle_t h);

/* ---- collectives (every node of the communicator, in the same order) ---- */

QMP_status_t QMP_barrier(void);
QMP_status_t QMP_comm_barrier(QMP_comm_t comm);
/* From the communicator's node 0 to all. */
QMP_status_t QMP_broadcast(void *buffer, size_t nbytes);
QMP_status_t QMP_comm_broadcast(QMP_comm_t comm, void *buffer, size_t nbytes);
QMP_status_t QMP_sum_int(int *value);
QMP_status_t QMP_comm_sum_int(QMP_comm_t comm, int *value);
QMP_status_t QMP_sum_uint64_t(uint64_t *value);
QMP_status_t QMP_comm_sum_uint64_t(QMP_comm_t comm, uint64_t *value);
QMP_status_t QMP_sum_float(float *value);
QMP_status_t QMP_comm_sum_float(QMP_comm_t comm, float *value);
QMP_status_t QMP_sum_double(double *value);
QMP_status_t QMP_comm_sum_double(QMP_comm_t comm, double *value);
QMP_status_t QMP_sum_long_double(long double *value);
QMP_status_t QMP_comm_sum_long_double(QMP_comm_t comm, long double *value);
QMP_status_t QMP_sum_double_extended(double *value);
QMP_status_t QMP_comm_sum_double_extended(QMP_comm_t comm, double *value);
QMP_status_t QMP_sum_float_array(float value[], int length);
QMP_status_t QMP_comm_sum_float_array(QMP_comm_t comm, float value[], int length);
QMP_status_t QMP_sum_double_array(double value[], int length);
QMP_status_t QMP_comm_sum_double_array(QMP_comm_t comm, double value[], int length);
QMP_status_t QMP_sum_long_double_array(long double value[], int length);
QMP_status_t QMP_comm_sum_long_double_array(QMP_comm_t comm, long double value[], int length);
QMP_status_t QMP_max_float(float *value);
QMP_status_t QMP_comm_max_float(QMP_comm_t comm, float *value);
QMP_status_t QMP_max_double(double *value);
QMP_status_t QMP_comm_max_double(QMP_comm_t comm, double *value);
QMP_status_t QMP_min_float(float *value);
QMP_status_t QMP_comm_min_float(QMP_comm_t comm, float *value);
QMP_status_t QMP_min_double(double *value);
QMP_status_t QMP_comm_min_double(QMP_comm_t comm, double *value);
QMP_status_t QMP_xor_ulong(unsigned long *value);
QMP_status_t QMP_comm_xor_ulong(QMP_comm_t comm, unsigned long *value);
/* count bytes from every node to every node: sendbuffer holds one block per
 * node, recvbuffer gets one block from each. */
QMP_status_t QMP_comm_alltoall(QMP_comm_t comm, char *recvbuffer, char *sendbuffer, int count);
/* bfunc combines whole buffers of buflen bytes, in node order. */
QMP_status_t QMP_binary_reduction(void *lbuffer, size_t buflen, QMP_binary_func bfunc);
QMP_status_t QMP_comm_binary_reduction(QMP_comm_t comm, void *lbuffer, size_t buflen, QMP_binary_func bfunc);

/* ---- errors ---- */

/* The text of code; QMP_error_string(QMP_ERROR) is the calling node's
 * last error, in words. */
const char *QMP_error_string(QMP_status_t code);
QMP_status_t QMP_get_error_number(QMP_msghandle_t mh);
const char *QMP_get_error_string(QMP_msghandle_t mh);

/* ---- output, time, version ---- */

int QMP_verbose(int level);
int QMP_profcontrol(int level);
/* Each prints one whole line (or more) at a time, prefixed with the node
 * number as QMP does: nodes' lines never mix. */
int QMP_printf(const char *format, ...);
int QMP_fprintf(FILE *stream, const char *format, ...);
int QMP_info(const char *format, ...);
int QMP_error(const char *format, ...);
double QMP_time(void);
void QMP_reset_total_qmp_time(void);
double QMP_get_total_qmp_time(void);
/* "2.5.1" and 2005001: what QMP 2.5 built from its public source reports
 * (its configure script names 2.5.1; this header declares its newest calls). */
const char *QMP_version_str(void);
int QMP_version_int(void);

#ifdef __cplusplus
}
#endif

/* QMP's header gives its programs this macro for unused arguments. */
#ifndef _QMP_UNUSED_ARGUMENT
#define _QMP_UNUSED_ARGUMENT(x) ((void)(x))
#endif

#endif
