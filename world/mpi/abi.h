/*
 * Open MPI 4's ABI as the MPI world uses it (mpi.c, msg.c): handles are
 * pointers to the library's predefined objects, functions come from
 * dlsym (mpiw_init).
 */
#ifndef EBSP_WORLD_MPI_ABI_H
#define EBSP_WORLD_MPI_ABI_H

#include <stddef.h>
#include <stdint.h>

typedef void *MPI_Comm;
typedef void *MPI_Datatype;
typedef void *MPI_Request;
typedef void *MPI_Message;
/* ompi_status_public_t */
typedef struct {
    int source, tag, error, cancelled;
    size_t ucount;
} MPI_Status;
#define MPI_SUCCESS 0
#define MPI_UNDEFINED (-32766)
#define MPI_ANY_SOURCE (-1)
#define MPI_ANY_TAG (-1)
#define MPI_THREAD_SINGLE 0
#define MPI_THREAD_SERIALIZED 2
#define MPI_TAG_UB 0 /* the first of Open MPI's predefined attribute keys */

struct mpiw_lib {
    void *lib;
    MPI_Comm world, comm;
    MPI_Request request_null; /* what a completed request becomes (MPI_REQUEST_NULL) */
    MPI_Datatype byte, integer;
    int (*init_thread)(int *, char ***, int, int *);
    int (*comm_rank)(MPI_Comm, int *);
    int (*comm_size)(MPI_Comm, int *);
    int (*comm_split)(MPI_Comm, int, int, MPI_Comm *);
    int (*comm_dup)(MPI_Comm, MPI_Comm *);
    int (*comm_free)(MPI_Comm *);
    int (*bcast)(void *, int, MPI_Datatype, int, MPI_Comm);
    int (*iallgatherv)(const void *, int, MPI_Datatype, void *, const int *, const int *, MPI_Datatype, MPI_Comm,
                       MPI_Request *);
    int (*isend)(const void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *);
    int (*irecv)(void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *);
    int (*send_init)(const void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *);
    int (*start)(MPI_Request *);
    int (*test)(MPI_Request *, int *, MPI_Status *);
    int (*wait)(MPI_Request *, MPI_Status *);
    int (*request_free)(MPI_Request *);
    int (*cancel)(MPI_Request *);
    int (*improbe)(int, int, MPI_Comm, int *, MPI_Message *, MPI_Status *);
    int (*mrecv)(void *, int, MPI_Datatype, MPI_Message *, MPI_Status *);
    int (*get_count)(const MPI_Status *, MPI_Datatype, int *);
    int (*comm_get_attr)(MPI_Comm, int, void *, int *);
    int (*waitany)(int, MPI_Request *, int *, void *);
    int (*waitall)(int, MPI_Request *, void *);
    int (*testall)(int, MPI_Request *, int *, void *);
    int (*finalize)(void);
    /* the exchange under way: receives first, then sends */
    MPI_Request *reqs;
    int *rank_of;
    int nrecv, recv_left, nsend, cap;
    int *left, nleft; /* by rank: messages of its block not yet arrived */
    /* the receives waited for: of each rank still receiving, the first
     * message of its block not yet arrived (a copy of its request), and
     * which rank and message that is (waiting_rank: the rank, or for a
     * send -2 - its index in reqs) */
    MPI_Request *waiting;
    int *waiting_rank, *next; /* next: by rank, the index in reqs of its waited message */
    int nwaiting;
    /* the sends: their messages, started a window at a time (mpi.c);
     * send_oldest is the first not yet complete, send_done says which are */
    char **piece_at;
    int *piece_count, *piece_tag;
    char *send_done;
    int send_next, send_end, send_oldest, window;
    int finalized;
    int world_rank;
    int tag_ub; /* the largest tag (MPI_TAG_UB), 0 when not known */
};
extern struct mpiw_lib M;

/* Completes the n requests, running the progress hook while it waits
 * when one is set (msg.c). */
int mpiw_complete(int n, MPI_Request *reqs, MPI_Status *statuses);
/* The tag of the message that ends the job (mpiw_end_announce), on the
 * world's communicator, where no other point-to-point message goes. */
enum { MPIW_END_TAG = 0x45 };

#endif
