/*
 * Open MPI, loaded when the program runs under mpirun (libmpi.so.40 by
 * dlopen, so the library needs no MPI to build or to run without it). The
 * few calls the MPI world makes, over Open MPI's ABI: handles are pointers
 * to the library's predefined objects.
 */
#ifndef EBSP_WORLD_MPI_H
#define EBSP_WORLD_MPI_H

#include <stddef.h>
#include <stdint.h>

/* Loads the library and initialises MPI (threads: any may call, one at a
 * time). Returns 0, or -1 with a reason in *why. */
int mpiw_init(int *rank, int *size, const char **why);
/* The communicator of the ranks below active (the rest only finalize). */
int mpiw_split(int active);
/* Rank 0's *value on every rank of the world. */
int mpiw_bcast_int(int *value);
/* Each rank sends words 64-bit values to each rank of the split
 * communicator: send[r*words+i] to rank r, recv[r*words+i] from rank r. */
int mpiw_alltoall(const int64_t *send, int64_t *recv, int words);
/* One exchange of blocks: a receive of recv_len[r] bytes from each rank r
 * with recv_len[r] > 0, a send of send_len[r] bytes to each rank with
 * send_len[r] > 0 (buffers stay valid until mpiw_next_arrival returns -1). */
int mpiw_post(int ranks, int tag, char *const *send, const int64_t *send_len, char *const *recv, const int64_t *recv_len);
/* The rank whose block arrived next, or -1 once every block arrived and
 * every send completed; -2 on an MPI error. */
int mpiw_next_arrival(void);
/* Ends the job: every rank, with code. */
void mpiw_abort(int code);
int mpiw_finalize(void);

#endif
