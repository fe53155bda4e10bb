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
/* ---- the rounds of a section: the transmission layer ----
 *
 * A round completes a barrier of the section's cores with the other
 * ranks: one all-to-all of headers (the bytes that follow for that rank,
 * the barrier the rank's cores wait in, the flag words), then a block to
 * each rank with bytes for it, the blocks received unpacked in order of
 * arrival. It knows nothing of BSP: the Go side packs (pack, into
 * mpiw_send_buffer) when mpiw_posted is set, and unpacks (unpack: the
 * block stays valid until the round after next, so it is read in place);
 * the flag words are merged by maximum. Both return 0, or -1 when they
 * failed (they say why). */
void mpiw_packers(int (*pack)(void), int (*unpack)(int rank, char *block, int64_t n));

/* Begins a section of ranks ranks, whose flag words (each an int32 that
 * only grows) are flags[0..nflags-1]. Returns 0, or -1 out of memory. */
int mpiw_section(int ranks, int32_t *const *flags, int nflags);
void mpiw_section_end(void);
/* Set when a core packed records since the last round. */
extern int mpiw_posted;
/* Room for n bytes to rank r in this round (the packer's). */
char *mpiw_send_buffer(int r, int64_t n);
/* A record's payload of len bytes at at (memory kept until the round
 * ends) sent to rank r as its own messages after the block, from where it
 * lies: no copy into the block. Its receiver posts mpiw_recv_apart for it
 * when the block arrives, in the same order, into the put's target or a
 * block it rebuilds in mpiw_stage_buffer (rank r's, valid as a received
 * block is). */
int mpiw_send_apart(int r, char *at, int64_t len);
int mpiw_recv_apart(int r, char *at, int64_t len);
char *mpiw_stage_buffer(int r, int64_t n);
/* A round whose cores wait in a barrier of kind, in superstep step: 0; MPIW_FAILED (an MPI
 * call failed), MPIW_DIVERGED (ranks wait in different kinds: mpiw_kind),
 * MPIW_UNPACKED (the Go side failed; it said why), MPIW_STOPPED (the run
 * was stopped while it waited for the other ranks: mpiw_stop_check). */
enum { MPIW_FAILED = -1, MPIW_DIVERGED = -2, MPIW_UNPACKED = -3, MPIW_STOPPED = -4 };
int mpiw_round(int kind, int step);
/* The messages and bytes this rank sent in the section's rounds so far:
 * headers and blocks. */
void mpiw_traffic(int64_t *msgs, int64_t *bytes);
/* The kind rank r waited in, in the last round, and the step it gave (the
 * superstep of its cores). */
int mpiw_kind(int r);
int mpiw_step(int r);
/* For tests of first-arrival unpacking: rank delay_rank waits delay_ms
 * before it sends its blocks in each round; with trace every rank prints
 * on stderr, per round with blocks, the ranks in the order they arrived. */
void mpiw_test_settings(int delay_rank, int delay_ms, int trace, int window);

/* The largest MPI message: a larger block goes as several (0: 4 MiB). */
void mpiw_block_limit(int64_t bytes);

/* One exchange of blocks: a receive of recv_len[r] bytes from each rank r
 * with recv_len[r] > 0, a send of send_len[r] bytes to each rank with
 * send_len[r] > 0 (buffers stay valid until mpiw_next_arrival returns -1),
 * and room for more_sends messages queued by mpiw_queue_send. */
int mpiw_post(int ranks, int tag, char *const *send, const int64_t *send_len, char *const *recv, const int64_t *recv_len,
              int64_t more_sends);
/* After mpiw_post: len bytes at at to rank r with tag, sent after what
 * was queued before (of at most more_sends messages in all). */
int mpiw_queue_send(char *at, int64_t len, int r, int tag);
/* The rank whose block arrived next, or -1 once every block arrived and
 * every send completed; -2 on an MPI error. */
int mpiw_next_arrival(void);
/* The end of a job that a rank decides (a stopped section, an exit inside
 * one): it tells ranks 0..ranks-1 (mpiw_end_announce), which take it
 * where they wait for other ranks (mpiw_end_arrived, and the hook given to
 * mpiw_on_end, called from the waits); then every rank finalizes, and the
 * deciding rank exits with code, the others with 0. */
void mpiw_end_announce(int ranks, int code);
/* A rank whose core crashed ends the job so, from its signal handler,
 * within its section (code: the job's status to be). */
void mpiw_end_crashed(int code);
/* 1 once another rank announced the end (any thread). */
int mpiw_end_arrived(void);
void mpiw_on_end(void (*hook)(void));
/* Exits at once with code (1 for 0), output flushed, without
 * MPI_Finalize: for a rank that cannot agree (out of memory). */
void mpiw_end_job(int code);
int mpiw_finalize(void);

/* ---- messages outside the rounds (msg.c): a face's own channels ----
 *
 * Point-to-point messages and gathers between the ranks of the running
 * section, on a communicator of their own; the tags are the caller's, one
 * per user: */
enum { MPIW_TAG_LQCD = 1, /* faces/lqcd's channels */
       MPIW_TAG_PLACES = 2 /* where the cores are, for a stall report (world.go) */ };
/* Any thread may call. */

/* Made by mpiw_section, ended by mpiw_section_end. */
int mpiw_msg_section(void);
void mpiw_msg_section_end(void);
/* poll runs while this rank waits in a round's all-to-all or in
 * mpiw_gather: the face answers other ranks' messages there (NULL: none). */
void mpiw_progress(void (*poll)(void));
/* Those waits end, returning MPIW_WAIT_STOPPED, once is_stopped says so
 * (the run was stopped here: a watchdog, a misuse). */
enum { MPIW_WAIT_STOPPED = -2 };
void mpiw_stop_check(int (*is_stopped)(void));
/* A persistent send of head_len bytes at head then body_len bytes at
 * body, both read at each start; NULL on failure. A body of
 * MPIW_BODY_APART bytes or more goes as a message of its own (tag |
 * MPIW_BODY) right after the head's, read in place; a smaller one in the
 * head's, both copied at the start. */
enum { MPIW_BODY = 1 << 16, MPIW_BODY_APART = 8192 };
struct mpiw_send;
struct mpiw_send *mpiw_send_init(const void *head, int head_len, const void *body, int body_len, int rank, int tag);
int mpiw_send_start(struct mpiw_send *s);
/* 1 when the last start completed (its bytes may change), 0 not yet, -1
 * an MPI error. */
int mpiw_send_test(struct mpiw_send *s);
/* Frees s; 1 when its last start was still in flight: MPI may still read
 * its head and body, which must then stay. */
int mpiw_send_free(struct mpiw_send *s);
/* Sends a copy of len bytes (a short message, for MPIW_TAG_LQCD at most
 * MPIW_LISTEN_MAX; its buffer is kept here). */
int mpiw_send_small(const void *bytes, int len, int rank, int tag);
/* A buffer of MPIW_LISTEN_MAX bytes for mpiw_send_small_buffer (NULL
 * without memory), and one given back: mpiw_small_buffer's, or
 * mpiw_receive's of MPIW_TAG_LQCD (only those: the others are smaller). */
void *mpiw_small_buffer(void);
void mpiw_small_release(void *buf);
/* Sends len bytes of buf, an mpiw_small_buffer: 0, and buf is here's
 * until MPI sent it; -1, and it is still the caller's. */
int mpiw_send_small_buffer(void *buf, int len, int rank, int tag);
/* The next message with tag from any rank, in a malloc'd buffer of *len
 * bytes from *rank (for MPIW_TAG_LQCD one of MPIW_LISTEN_MAX, best given
 * back with mpiw_small_release), or NULL when none arrived (or another
 * thread looks).
 * For MPIW_TAG_LQCD, whose messages (mpiw_send_small's, and a head with
 * a body below MPIW_BODY_APART) are at most MPIW_LISTEN_MAX bytes,
 * receives wait posted in advance: a message lands in one as it arrives,
 * instead of waiting unexpected for a probe. */
enum { MPIW_LISTEN_MAX = MPIW_BODY_APART + 256 };
void *mpiw_receive(int tag, int *rank, int *len);
/* The body sent apart after the head with tag that mpiw_receive just
 * gave from rank, len bytes (its sender's body_len, at least
 * MPIW_BODY_APART) into buf; waits for it. Bodies pair with heads in
 * order, so the caller takes each such head's body before another head
 * of that tag. 0, or -1 on an MPI error. */
int mpiw_receive_body(int rank, int tag, void *buf, int len);
/* Every rank's len bytes, rank r's at recv + displs[r] (lens[r] bytes);
 * runs the progress hook while it waits. */
int mpiw_gather(const void *send, int len, void *recv, const int *lens, const int *displs);

#endif
