/*
 * A face's messages between the processes of a section (core.h): the MPI
 * world's (world/mpi/msg.c) on the face's tag. The face sees processes
 * and messages, never MPI.
 */
#include "shim.h"
#include "../world/mpi/mpi.h"

#include <stdlib.h>

_Static_assert((int)WORLD_BODY_APART == (int)MPIW_BODY_APART, "a body apart is MPI's");
_Static_assert((int)WORLD_SMALL_MAX == (int)MPIW_LISTEN_MAX, "a small message fits MPI's posted receives");

enum { FACE_TAG = MPIW_TAG_LQCD };

struct world_send *world_send_init(const void *head, int head_len, const void *body, int body_len, int rank)
{
    return (struct world_send *)mpiw_send_init(head, head_len, body, body_len, rank, FACE_TAG);
}

int world_send_start(struct world_send *s)
{
    return mpiw_send_start((struct mpiw_send *)s);
}

int world_send_test(struct world_send *s)
{
    return mpiw_send_test((struct mpiw_send *)s);
}

int world_send_free(struct world_send *s)
{
    return mpiw_send_free((struct mpiw_send *)s);
}

int world_send_small(const void *bytes, int len, int rank)
{
    return mpiw_send_small(bytes, len, rank, FACE_TAG);
}

void *world_buffer(void)
{
    return mpiw_small_buffer();
}

int world_send_buffer(void *buf, int len, int rank)
{
    return mpiw_send_small_buffer(buf, len, rank, FACE_TAG);
}

void world_release(void *buf)
{
    mpiw_small_release(buf);
}

void *world_receive(int *rank, int *len)
{
    return mpiw_receive(FACE_TAG, rank, len);
}

int world_receive_body(int rank, void *buf, int len)
{
    return mpiw_receive_body(rank, FACE_TAG, buf, len);
}

int world_gather_cores(const void *mine, size_t per_core, void *all, int ncores)
{
    int per = ebsp_world_per_rank, ranks = (ncores + per - 1) / per;
    int *lens = malloc(2 * (size_t)ranks * sizeof *lens);
    if (!lens)
        return -1;
    int *displs = lens + ranks;
    for (int r = 0; r < ranks; r++) {
        int lo = r * per, hi = lo + per < ncores ? lo + per : ncores;
        lens[r] = (int)((size_t)(hi - lo) * per_core);
        displs[r] = (int)((size_t)lo * per_core);
    }
    int rc = mpiw_gather(mine, lens[ebsp_world_rank], all, lens, displs);
    free(lens);
    return rc;
}

void world_progress(void (*poll)(void))
{
    mpiw_progress(poll);
}
