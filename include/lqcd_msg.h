/*
 * lqcd_msg.h -- the LQCD message-passing API (Chip Watson's straw man,
 * version 0.3, 2001) on the emulated Epiphany mesh of libebsp.
 *
 * Callable from any kernel (a kernel file e_*.c or a registered C, Python or
 * Go function) next to the BSP calls of e_bsp.h.  The cores of the run
 * (bsp_nprocs() of them) are the hosts of the API; a host's number is its
 * core number, bsp_pid().  Everything declared here belongs to one run
 * (one ebsp_spmd): channels, the topology and the error state start afresh
 * in the next run, so declare them again there (an opaque pointer kept in a
 * global from an earlier run is freed memory).
 *
 * The model: a receiver declares a buffer under an integer name; a sender
 * declares a channel from its buffer to (core, name).  Both are persistent:
 * declared once (the lookups, size checks and address resolution happen
 * there), then started many times, each start a few stores.
 *
 * Completion rules
 *   - a send is complete when its source buffer may be reused: its bytes
 *     are in the receiver's buffer;
 *   - a receive is complete when the data is in place in its buffer.
 *   The bytes move once both sides are ready, copied by whichever side made
 *   the pair ready: startSend copies when the receive is already armed
 *   (startReceive called, not yet filled); otherwise the send stays pending
 *   and the receiver's next startReceive copies it (pending sends into one
 *   buffer are served in the order they were started).  Neither side has to
 *   test or wait for the other's operation to complete.
 *   - a send may be declared before the receiver declared its buffer: the
 *     declaration is matched when the receiver declares it, and a send
 *     started before then is pending like any other.  A send whose buffer
 *     is never declared never completes: waitFor says so when it times out,
 *     and fails at once when the receiving core left its kernel.
 *   - one channel has at most one operation in flight: starting a send
 *     that is pending, or a receive that is armed, is LQCD_ERR_BUSY and does
 *     nothing.  Re-arming a complete receive hands its buffer back.
 *
 * Errors: declarations return NULL; the other calls set the calling core's
 * error number (per core: each core thread has its own) and return their
 * failure value.  getErrorNumber() and getErrorString() tell the last error
 * of this core and keep it (errno style) until the next error or
 * clearError().  The string names the call, the cores, buffers and sizes.
 *
 * In a BSPlib section spread over the ranks of an MPI job (mpirun), a
 * channel may join cores of different ranks: the same calls and rules,
 * with these differences. Such a send completes when MPI has its bytes
 * (its buffer may be reused), which may be before the receive is armed.
 * A size that differs from the receive's is found by the receiver: the
 * send's next call after that fails with LQCD_ERR_SIZE (its declaration
 * cannot know). Sends from several ranks into one buffer are served in
 * the order they arrive. A rank takes messages in while one of its cores
 * is in an LQCD call or waits in a barrier, so a core that computes long
 * without either delays the sends to it.
 *
 * Collectives (sendBroadcast excepted) are called by every core of the run
 * in the same order, like bsp_sync; a core calling another collective, or
 * calling one while others wait in bsp_sync, stops the run with a report.
 * Global sums are bitwise reproducible: every core adds the contributions
 * in the order of the core numbers, whatever the timing, so every core and
 * every run gets the same bits, in every layout of the cores over MPI ranks.
 */
#ifndef LQCD_MSG_H
#define LQCD_MSG_H

#ifdef __cplusplus
extern "C" {
#endif

/* Error numbers (getErrorNumber). */
enum lqcd_error {
    LQCD_OK = 0,
    LQCD_ERR_NOT_CORE = 1,     /* called outside a core (on the host) */
    LQCD_ERR_NOT_INIT = 2,     /* initMachine not called on this core in this run, or after shutdownMachine */
    LQCD_ERR_ARG = 3,          /* NULL buffer, negative size, bad count */
    LQCD_ERR_HOST = 4,         /* remote host outside 0 .. bsp_nprocs()-1 */
    LQCD_ERR_TOPOLOGY = 5,     /* bad declareTopology: dimensions, localHost, or differs from another core's */
    LQCD_ERR_NO_TOPOLOGY = 6,  /* declareSendRelative before declareTopology */
    LQCD_ERR_DIRECTION = 7,    /* relative direction 0 or beyond the topology's dimensions */
    LQCD_ERR_NAME_TAKEN = 8,   /* declareReceive of a buffer name this core already declared */
    LQCD_ERR_NO_BUFFER = 9,    /* the remote core never declared the buffer name */
    LQCD_ERR_SIZE = 10,        /* sender's and receiver's sizes differ */
    LQCD_ERR_BUSY = 11,        /* start of a channel whose previous operation is not complete */
    LQCD_ERR_CHANNEL = 12,     /* not a channel, or another core's */
    LQCD_ERR_NOT_STARTED = 13, /* waiting on a channel never started */
    LQCD_ERR_TIMEOUT = 14,     /* waitFor / waitForMultiple: time is up */
    LQCD_ERR_PARTNER = 15,     /* the other side left its kernel (or shut down): the operation can never complete */
    LQCD_ERR_STOPPED = 16,     /* the run is being stopped (bsp_abort, deadlock, watchdog) */
    LQCD_ERR_NOMEM = 17,
    LQCD_ERR_RANKS = 18        /* reserved: no call returns it (the API works across MPI ranks) */
};

/* The most dimensions declareTopology accepts. */
#define LQCD_MAX_DIMS 8

/* ---- machine initialization ---- */

/* Initializes the API on this core; returns 0 (-1 on the host). */
int initMachine(void);
/* -1 butterfly, 0 switch, >0 grid: returns 2, the dimensions of the mesh. */
int getMachineType(void);
/* Ends the API on this core.  Channels stay declared (other cores may
 * still complete sends into this core's armed receives, or pull its pending
 * sends) until the run ends.  Returns the number of this core's operations
 * still incomplete (0: all done). */
int shutdownMachine(void);

/* Declares the logical grid: dimensions[0] is x (varies fastest), periodic
 * in every dimension; the product must be bsp_nprocs(), 1 <= ndimensions <=
 * LQCD_MAX_DIMS.  localHost must be this core's number, bsp_pid() (the
 * library knows it; a disagreement is LQCD_ERR_TOPOLOGY).  Every core
 * declares the same grid.  The library places the grid on the mesh so that
 * logical neighbours are mesh neighbours where the shapes allow: a grid
 * whose x is the mesh's width and whose other dimensions fill the rows (4x4
 * on the 4x4 mesh, 4x2x2, 8x8 on 8x8) is placed lexicographically, so grid
 * rank == core number as the API's author assumed; other shapes (16 on a
 * 4x4 mesh: a ring through the mesh; 2x2x2x2 ...) may be permuted:
 * getGridCoordinates and getGridHost tell where each core sits. */
void declareTopology(int dimensions[], int ndimensions, int localHost);

/* ---- declarations (NULL on error) ---- */

/* This core receives nbytes into buffer under the name bufName. */
void *declareReceive(void *buffer, int nbytes, int bufName);
/* A channel from buffer (nbytes) to the buffer named remoteBuffer on core
 * remoteHost (0 .. bsp_nprocs()-1; this core itself is allowed). */
void *declareSendTo(void *buffer, int nbytes, int remoteHost, int remoteBuffer);
/* Same, to the neighbour in the declared topology: +1 is +x, -1 is -x,
 * +2 is +y, -2 is -y, ... up to +-ndimensions (periodic). */
void *declareSendRelative(void *buffer, int nbytes, int relativeHost, int remoteBuffer);

char *getErrorString(void);
int getErrorNumber(void);
/* Extension: resets this core's error number to LQCD_OK. */
void clearError(void);

/* ---- operations ---- */

/* Non-blocking: start a send or arm a receive (see the completion rules). */
void startSend(void *opaque);
void startReceive(void *opaque);
/* 1: the last start completed; 0: not yet; -1: an error (never started,
 * not a channel of this core, the other side gone, a size mismatch found
 * when the receiver declared its buffer). */
int testCompletion(void *opaque);
/* Waits until the last start completed, at most milliseconds (0: just
 * test; negative: no limit, until completion or the other side left its
 * kernel).  Returns 1 when complete, 0 on timeout (LQCD_ERR_TIMEOUT, the
 * string says what is missing), -1 on error.  Waiting lets other cores run
 * (it yields, then sleeps). */
int waitFor(void *opaque, int milliseconds);
/* Waits until all count operations completed: 1, 0 on timeout, -1 on an
 * error in any of them. */
int waitForMultiple(void *opaque[], int count, int milliseconds);

/* ---- collectives ---- */

/* Sends nbytes of buffer to the receive named remoteBuffer on every other
 * core (each receives it when its receive is armed; not a collective: only
 * the sender calls it).  Returns once buffer may be reused (the data is
 * staged); a second broadcast to the same name first waits until every core
 * received the previous one. */
void sendBroadcast(void *buffer, int nbytes, int remoteBuffer);
/* The seed's bool is int here: returns 1 when any core passed non-zero. */
int globalOr(int b);
/* Sums over all cores, the same bits on every core and in every run (core
 * order; int wraps around; floats are added in double, then rounded). */
int sumInt(int i);
float sumFloat(float x);
double sumDouble(double x);
/* In place, element by element; the seed's calls have no length: here n is
 * the number of elements, the same on every core. */
void sumFloatArray(float x[], int n);
void sumDoubleArray(double x[], int n);
/* All cores of the run meet here. */
void waitForBarrier(void);

/* ---- extensions: where the grid put this core ---- */

/* This core's coordinates in the declared grid (ndimensions of them);
 * returns 0, or -1 before declareTopology (LQCD_ERR_NO_TOPOLOGY) or for
 * NULL coords (LQCD_ERR_ARG). */
int getGridCoordinates(int coords[]);
/* The core at the given grid coordinates (taken periodically), or -1
 * (before declareTopology: LQCD_ERR_NO_TOPOLOGY; NULL coords: LQCD_ERR_ARG). */
int getGridHost(const int coords[]);

#ifdef __cplusplus
}
#endif

#endif
