#define _GNU_SOURCE /* nanosleep, also under -std=c99 (make test-shim) */
#include "mpi.h"
#include "abi.h"

#include <dlfcn.h>
#include <stdint.h>
#include <unistd.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The Go side's pack and unpack (mpiw_packers): called through pointers,
 * so that this file calls no function of the file that calls it. */
static struct {
    int (*pack)(void);
    int (*unpack)(int rank, char *block, int64_t n);
} packers;

void mpiw_packers(int (*pack)(void), int (*unpack)(int rank, char *block, int64_t n))
{
    packers.pack = pack;
    packers.unpack = unpack;
}

struct mpiw_lib M;

static void *sym(const char *name, int *missing)
{
    void *p = dlsym(M.lib, name);
    if (!p)
        *missing = 1;
    return p;
}

/* An object of libmpi (a communicator, a datatype), as libmpi's code uses
 * it: the program's copy when the program refers to it itself (a copy
 * relocation of MPI_COMM_WORLD: libmpi then initialises that one, and its
 * own stays untouched), else libmpi's. */
static void *object(const char *name, int *missing)
{
    void *p = dlsym(RTLD_DEFAULT, name);
    return p ? p : sym(name, missing);
}

#define LOAD(field, name) (*(void **)&M.field = sym(name, &missing))

int mpiw_init(int *rank, int *size, const char **why)
{
    M.lib = dlopen("libmpi.so.40", RTLD_NOW | RTLD_GLOBAL);
    if (!M.lib) {
        *why = "cannot load libmpi.so.40 (Open MPI 4: apt-get install openmpi-bin)";
        return -1;
    }
    int missing = 0;
    M.world = object("ompi_mpi_comm_world", &missing);
    M.byte = object("ompi_mpi_byte", &missing);
    M.integer = object("ompi_mpi_int", &missing);
    M.request_null = object("ompi_request_null", &missing);
    LOAD(init_thread, "MPI_Init_thread");
    LOAD(comm_rank, "MPI_Comm_rank");
    LOAD(comm_size, "MPI_Comm_size");
    LOAD(comm_split, "MPI_Comm_split");
    LOAD(bcast, "MPI_Bcast");
    LOAD(comm_dup, "MPI_Comm_dup");
    LOAD(comm_free, "MPI_Comm_free");
    LOAD(iallgatherv, "MPI_Iallgatherv");
    LOAD(send_init, "MPI_Send_init");
    LOAD(start, "MPI_Start");
    LOAD(test, "MPI_Test");
    LOAD(wait, "MPI_Wait");
    LOAD(request_free, "MPI_Request_free");
    LOAD(cancel, "MPI_Cancel");
    LOAD(improbe, "MPI_Improbe");
    LOAD(mrecv, "MPI_Mrecv");
    LOAD(get_count, "MPI_Get_count");
    LOAD(comm_get_attr, "MPI_Comm_get_attr");
    LOAD(isend, "MPI_Isend");
    LOAD(irecv, "MPI_Irecv");
    LOAD(waitany, "MPI_Waitany");
    LOAD(waitall, "MPI_Waitall");
    LOAD(testall, "MPI_Testall");
    LOAD(finalize, "MPI_Finalize");
    if (missing) {
        *why = "libmpi.so.40 lacks a function or object of Open MPI 4";
        return -1;
    }
    /* Threads call MPI one at a time, each call ordered after the last by
     * the library's own barrier or mutex (msg.c). MPI_THREAD_SERIALIZED
     * says so, but Open MPI 4 then locks inside every call, which only
     * MPI_THREAD_MULTIPLE needs: 0.25 µs more per message here (an empty
     * 2-rank sync 1.2 µs instead of 0.95), so the single level it is. */
    int level = MPI_THREAD_SINGLE;
    int provided = 0;
    if (M.init_thread(NULL, NULL, level, &provided) != MPI_SUCCESS || provided < level) {
        *why = "MPI_Init_thread failed, or gave no thread support";
        return -1;
    }
    M.comm = M.world;
    int *tag_ub = NULL, has_ub = 0;
    if (M.comm_get_attr(M.world, MPI_TAG_UB, &tag_ub, &has_ub) == MPI_SUCCESS && has_ub && tag_ub)
        M.tag_ub = *tag_ub;
    if (M.comm_rank(M.world, rank) != MPI_SUCCESS || M.comm_size(M.world, size) != MPI_SUCCESS) {
        *why = "MPI_Comm_rank or MPI_Comm_size failed";
        return -1;
    }
    M.world_rank = *rank;
    return 0;
}

int mpiw_split(int active)
{
    int rank;
    M.comm_rank(M.world, &rank);
    MPI_Comm comm = NULL;
    if (M.comm_split(M.world, rank < active ? 0 : MPI_UNDEFINED, rank, &comm) != MPI_SUCCESS)
        return -1;
    M.comm = rank < active ? comm : M.world;
    return 0;
}

int mpiw_bcast_int(int *value)
{
    if (M.finalized)
        return -1; /* MPI_Bcast after MPI_Finalize ends the job with Open MPI's complaint */
    return M.bcast(value, 1, M.integer, 0, M.world) == MPI_SUCCESS ? 0 : -1;
}

/* The largest message of a block (mpiw_block_limit): a larger block goes
 * as several, received in place one after the other. */
static int64_t block_limit = 4 << 20;

void mpiw_block_limit(int64_t bytes)
{
    block_limit = bytes > 0 ? bytes : 4 << 20;
}

/* The messages of a block of n bytes. */
static int64_t pieces(int64_t n)
{
    return n <= 0 ? 0 : (n + block_limit - 1) / block_limit;
}

/* Room for n requests. */
static int reserve_requests(int64_t n)
{
    if (n <= M.cap)
        return 0;
    free(M.reqs);
    free(M.rank_of);
    free(M.piece_at);
    free(M.piece_count);
    free(M.piece_tag);
    free(M.send_done);
    M.reqs = malloc((size_t)n * sizeof *M.reqs);
    M.rank_of = malloc((size_t)n * sizeof *M.rank_of);
    M.piece_at = malloc((size_t)n * sizeof *M.piece_at);
    M.piece_count = malloc((size_t)n * sizeof *M.piece_count);
    M.piece_tag = malloc((size_t)n * sizeof *M.piece_tag);
    M.send_done = malloc((size_t)n * sizeof *M.send_done);
    M.cap = 0;
    if (!M.reqs || !M.rank_of || !M.piece_at || !M.piece_count || !M.piece_tag || !M.send_done)
        return -1;
    M.cap = (int)n;
    return 0;
}

/* Posts the receives of a block of len bytes at buf from rank r: one per
 * block_limit bytes, in order (MPI keeps the order of messages of one tag
 * between two ranks). */
static int post_receives(char *buf, int64_t len, int r, int tag, int *n)
{
    for (int64_t at = 0; at < len; at += block_limit) {
        int count = (int)(len - at < block_limit ? len - at : block_limit);
        M.rank_of[*n] = r;
        if (M.irecv(buf + at, count, M.byte, r, tag, M.comm, &M.reqs[*n]) != MPI_SUCCESS)
            return -1;
        (*n)++;
    }
    return 0;
}

/* The messages of a block of len bytes at buf to rank r, to be sent in
 * order (send_window). */
static void queue_sends(char *buf, int64_t len, int r, int tag, int *n)
{
    for (int64_t at = 0; at < len; at += block_limit) {
        M.rank_of[*n] = r;
        M.piece_tag[*n] = tag;
        M.piece_at[*n] = buf + at;
        M.piece_count[*n] = (int)(len - at < block_limit ? len - at : block_limit);
        M.send_done[*n] = 0;
        (*n)++;
    }
}

/* Starts queued sends while the oldest one not yet complete is fewer than
 * M.window messages back. Open MPI keeps the sends it cannot start at once
 * in a list that every progress call walks: all of them posted at once
 * (thousands with EBSP_MPI_BLOCK=64) made a superstep quadratic in its
 * messages. The window is counted from the oldest incomplete send, not as
 * the number under way: ob1 numbers the messages between two ranks with 16
 * bits, and a send left waiting for resources while 65,536 later ones
 * passed it was matched to the wrong receive (with 1,024 sends under way
 * and 160,000 64-byte messages over vader, a block arrived with a piece of
 * the one 4 MiB further on, in 2 runs of 4). Returns 0, or -1. */
enum { SEND_WINDOW = 64 };
static int send_window_size = SEND_WINDOW; /* mpiw_test_settings may change it */

static int send_window(void)
{
    while (M.send_next - M.send_oldest < M.window && M.send_next < M.send_end) {
        int i = M.send_next++;
        if (M.isend(M.piece_at[i], M.piece_count[i], M.byte, M.rank_of[i], M.piece_tag[i], M.comm, &M.reqs[i]) !=
            MPI_SUCCESS)
            return -1;
        M.waiting[M.nwaiting] = M.reqs[i];
        M.waiting_rank[M.nwaiting++] = -2 - i;
    }
    return 0;
}

/* Send i completed: the window moves past the sends complete in order. */
static void send_completed(int i)
{
    M.send_done[i] = 1;
    while (M.send_oldest < M.send_next && M.send_done[M.send_oldest])
        M.send_oldest++;
}

int mpiw_post(int ranks, int tag, char *const *send, const int64_t *send_len, char *const *recv, const int64_t *recv_len,
              int64_t more_sends)
{
    int64_t total = ranks + more_sends;
    for (int r = 0; r < ranks; r++)
        total += pieces(send_len[r]) + pieces(recv_len[r]);
    if (reserve_requests(total) != 0)
        return -1;
    int window = send_window_size + ranks;
    if (M.nleft < ranks) {
        int *left = realloc(M.left, (size_t)ranks * sizeof *left);
        int *next = left ? realloc(M.next, (size_t)ranks * sizeof *next) : NULL;
        if (left)
            M.left = left;
        if (!next)
            return -1;
        M.next = next;
        M.nleft = ranks;
    }
    if (M.window < window) {
        /* the waited requests: one receive per rank, the window's sends */
        int *wrank = realloc(M.waiting_rank, (size_t)(ranks + window) * sizeof *wrank);
        MPI_Request *w = wrank ? realloc(M.waiting, (size_t)(ranks + window) * sizeof *w) : NULL;
        if (wrank)
            M.waiting_rank = wrank;
        if (!w)
            return -1;
        M.waiting = w;
    }
    M.window = window;
    int n = 0;
    M.recv_left = 0;
    M.nwaiting = 0;
    for (int r = 0; r < ranks; r++) {
        M.left[r] = (int)pieces(recv_len[r]);
        M.recv_left += M.left[r] > 0;
        M.next[r] = n;
        if (post_receives(recv[r], recv_len[r], r, tag, &n) != 0)
            return -1;
        if (M.left[r] > 0) {
            M.waiting[M.nwaiting] = M.reqs[M.next[r]];
            M.waiting_rank[M.nwaiting++] = r;
        }
    }
    M.nrecv = n;
    for (int r = 0; r < ranks; r++)
        queue_sends(send[r], send_len[r], r, tag, &n);
    M.nsend = n - M.nrecv;
    M.send_next = M.nrecv;
    M.send_end = n;
    M.send_oldest = M.nrecv;
    return send_window();
}

int mpiw_queue_send(char *at, int64_t len, int r, int tag)
{
    if (M.send_end + pieces(len) > M.cap)
        return -1; /* more than mpiw_post was told */
    queue_sends(at, len, r, tag, &M.send_end);
    M.nsend = M.send_end - M.nrecv;
    return send_window();
}

int mpiw_next_arrival(void)
{
    /* Waits for one message of each rank at a time, the first of its
     * block not yet arrived, and for the sends of the window: MPI_Waitany
     * looks at every request it is given, and given all of them (a block
     * split by EBSP_MPI_BLOCK=64 is thousands) it made a superstep
     * quadratic in the messages: 40,000 4-byte BSMP messages per core at
     * 2 x 2 took 2.4 s, 160,000 32-67 s. */
    while (M.nwaiting > 0) {
        int k = -1;
        /* MPI_STATUS_IGNORE is NULL in Open MPI; the completed request
         * becomes MPI_REQUEST_NULL in M.waiting, and is replaced below */
        if (M.waitany(M.nwaiting, M.waiting, &k, NULL) != MPI_SUCCESS || k < 0 || k >= M.nwaiting)
            return -2;
        int r = M.waiting_rank[k];
        if (r >= 0 && --M.left[r] > 0) { /* the next message of the block */
            M.waiting[k] = M.reqs[++M.next[r]];
            continue;
        }
        /* a send, or a block's last message: it leaves the waited ones */
        M.nwaiting--;
        M.waiting[k] = M.waiting[M.nwaiting];
        M.waiting_rank[k] = M.waiting_rank[M.nwaiting];
        if (r < 0) {
            send_completed(-2 - r);
            if (send_window() != 0)
                return -2;
            continue;
        }
        M.recv_left--;
        return r;
    }
    M.nsend = 0;
    return -1;
}

/* Not MPI_Abort: Open MPI 4.1's MPI_Abort sends mpirun its report while
 * mpirun already kills the job, and mpirun then printed "ORTE_ERROR_LOG:
 * Data unpack would read past end of buffer" (or "Out of resource") in
 * 9 of 30 runs of a plain C MPI program whose one rank called it; from
 * several ranks at once it hung or crashed mpirun. Nor an exit without
 * MPI_Finalize: over TCP the other ranks then print "An MPI communication
 * peer process has unexpectedly disconnected" before mpirun ends them.
 * So the ranks agree: this one tells the others (they take it where they
 * wait for other ranks, mpiw_end_arrived), all finalize, and this one
 * exits with code, the others with 0; mpirun, seeing one rank end with a
 * non-zero status, prints its one report naming it and exits with code
 * (its default, orte_abort_on_non_zero_status). */
void mpiw_end_announce(int ranks, int code)
{
    if (!M.lib || M.finalized)
        return;
    static int32_t word;
    word = code;
    for (int r = 0; r < ranks; r++) {
        MPI_Request req;
        if (r != M.world_rank && M.isend(&word, 1, M.integer, r, MPIW_END_TAG, M.world, &req) == MPI_SUCCESS)
            M.request_free(&req); /* a short message: MPI sends it at once */
    }
}

void mpiw_end_job(int code)
{
    fflush(NULL);
    _exit(code != 0 ? code : 1);
}

int mpiw_finalize(void)
{
    if (!M.lib || M.finalized)
        return 0;
    mpiw_section_end(); /* its requests withdrawn */
    M.finalized = 1;
    return M.finalize() == MPI_SUCCESS ? 0 : -1;
}

/* ---- rounds ---- */

int mpiw_posted;

/* A record's payload sent as its own messages (mpiw_send_apart). */
struct apart {
    char *at;
    int64_t len;
    int rank;
};

static struct {
    int ranks, me, nflags, round;
    int32_t *const *flags;
    int words;                   /* header words per rank */
    int32_t *out, *in;           /* headers: [rank * words] */
    int *out_words;              /* by rank: the words of this round's header */
    int32_t *last_flags;         /* the flag words of the last full headers */
    MPI_Request *hreqs;          /* the header exchange's: 2 per other rank */
    MPI_Status *hstat;           /* and their statuses */
    char **send, **recv[2];      /* buffers by rank; receives by the round's parity */
    int64_t *send_cap, *recv_cap[2], *send_len, *recv_len;
    char **stage[2];             /* by parity and rank: blocks rebuilt around payloads sent apart */
    int64_t *stage_cap[2];
    struct apart *apart;         /* this round's payloads sent apart, in order: to rank */
    int napart, apart_cap;
    MPI_Request *areqs;          /* their sends, then the receives of those sent to this rank */
    int nareq, areq_cap;
    int64_t sent_msgs, sent_bytes; /* since the section began: headers and blocks */
    int abandoned;                 /* hreqs of a header exchange left unfinished (the run stopped) */
} X;

/* Withdraws the requests of a header exchange left when the run stopped
 * (a rank ends the job): its receives, whose buffers are freed next, are
 * cancelled; its sends go on without their requests. */
static void withdraw_headers(void)
{
    int nrecv = X.ranks - 1;
    for (int i = 0; i < X.abandoned; i++) {
        if (X.hreqs[i] == M.request_null || !X.hreqs[i])
            continue;
        if (i < nrecv && M.cancel(&X.hreqs[i]) == MPI_SUCCESS)
            M.wait(&X.hreqs[i], NULL);
        else
            M.request_free(&X.hreqs[i]);
    }
    X.abandoned = 0;
}

/* A header's 32-bit words: the first says the barrier's kind and the
 * step, and whether the rest follows (HDR_FULL). A rank whose flag words
 * have not changed since its last full headers and which has no block
 * for a rank sends it the first word alone, as the tag of an empty
 * message (exchange_headers): an empty superstep at 2 ranks exchanged
 * 56 bytes in 0.66 µs, 4 in 0.52-0.60 µs, nothing in 0.50-0.53 µs, which
 * is what an MPI_Barrier takes. */
enum { HDR_FIRST, HDR_BYTES_LO, HDR_BYTES_HI, HDR_STEP, HDR_FLAGS };
#define HDR_FULL (1 << 30)
#define HDR_KIND_SHIFT 26
#define HDR_STEP_MASK ((1 << HDR_KIND_SHIFT) - 1)

static int header_kind(const int32_t *h)
{
    return (h[HDR_FIRST] >> HDR_KIND_SHIFT) & 0xf;
}

static int header_full(const int32_t *h)
{
    return (h[HDR_FIRST] & HDR_FULL) != 0;
}

/* Fills this round's header to each rank (kind < 16). */
static void make_headers(int kind, int step)
{
    int changed = 0;
    for (int i = 0; i < X.nflags; i++) {
        int32_t v = atomic_load((_Atomic int32_t *)X.flags[i]);
        changed |= v != X.last_flags[i];
        X.last_flags[i] = v;
    }
    int first = kind << HDR_KIND_SHIFT | (step & HDR_STEP_MASK);
    for (int r = 0; r < X.ranks; r++) {
        int32_t *h = X.out + r * X.words;
        int full = changed || X.send_len[r] > 0 || step < 0 || step > HDR_STEP_MASK;
        h[HDR_FIRST] = first | (full ? HDR_FULL : 0);
        X.out_words[r] = full ? X.words : 1;
        if (!full)
            continue;
        h[HDR_BYTES_LO] = (int32_t)(uint32_t)X.send_len[r];
        h[HDR_BYTES_HI] = (int32_t)(X.send_len[r] >> 32);
        h[HDR_STEP] = step;
        memcpy(h + HDR_FLAGS, X.last_flags, (size_t)X.nflags * sizeof *h);
    }
}
/* Tags: the headers' one, a block's, by round, and its payloads sent
 * apart (APART_TAG + round, below HEADER_TAG). */
enum { HEADER_TAG = 0x7fff, BLOCK_TAGS = 0x3fff, APART_TAG = 0x4000, APART_TAGS = 0x1fff };

static int apart_tag(void)
{
    return APART_TAG + (X.round & APART_TAGS);
}

/* The all-to-all of the round's headers, the barrier: point-to-point
 * messages, which also match a rank that waits running the progress
 * hook (mpiw_complete). A header of its first word alone goes as an empty
 * message tagged with that word, so the receives take any tag: a rank's
 * messages of the last round were all received in it, and its header is
 * the first message it sends in a round. */
static int exchange_headers(void)
{
    int n = 0, w = X.words;
    for (int r = 0; r < X.ranks; r++) {
        if (r == X.me)
            memcpy(X.in + r * w, X.out + r * w, (size_t)X.out_words[r] * sizeof *X.in);
        else if (M.irecv(X.in + r * w, w, M.integer, r, MPI_ANY_TAG, M.comm, &X.hreqs[n++]) != MPI_SUCCESS)
            return -1;
    }
    for (int r = 0; r < X.ranks; r++) {
        if (r == X.me)
            continue;
        const int32_t *h = X.out + r * w;
        int in_tag = X.out_words[r] == 1 && M.tag_ub >= HDR_FULL - 1;
        if (M.isend(h, in_tag ? 0 : X.out_words[r], M.integer, r, in_tag ? h[HDR_FIRST] : HEADER_TAG, M.comm,
                    &X.hreqs[n++]) != MPI_SUCCESS)
            return -1;
    }
    int rc = mpiw_complete(n, X.hreqs, X.hstat);
    if (rc != 0) {
        X.abandoned = n; /* withdrawn by mpiw_section_end */
        return rc;
    }
    const MPI_Status *st = X.hstat; /* the receives', in rank order */
    for (int r = 0; r < X.ranks; r++) {
        if (r == X.me)
            continue;
        int count = -1;
        if (M.get_count(st, M.integer, &count) == MPI_SUCCESS && count == 0)
            X.in[r * w + HDR_FIRST] = st->tag;
        st++;
    }
    return 0;
}

/* For tests of first-arrival unpacking (mpiw_test_settings). */
static struct {
    int delay_rank, delay_ms, trace;
} T = {-1, 0, 0};

void mpiw_test_settings(int delay_rank, int delay_ms, int trace, int window)
{
    send_window_size = window > 0 ? window : SEND_WINDOW;
    T.delay_rank = delay_rank;
    T.delay_ms = delay_ms;
    T.trace = trace;
}

static void test_delay(void)
{
    if (T.delay_rank == X.me && T.delay_ms > 0) {
        struct timespec ts = {T.delay_ms / 1000, (long)(T.delay_ms % 1000) * 1000000L};
        nanosleep(&ts, NULL);
    }
}

void mpiw_section_end(void)
{
    if (X.abandoned)
        withdraw_headers();
    mpiw_msg_section_end();
    for (int r = 0; r < X.ranks; r++) {
        free(X.send[r]);
        for (int k = 0; k < 2; k++) {
            free(X.recv[k][r]);
            free(X.stage[k][r]);
        }
    }
    free(X.apart);
    free(X.areqs);
    free(X.out);
    free(X.in);
    free(X.hreqs);
    free(X.hstat);
    free(X.out_words);
    free(X.last_flags);
    free(X.send);
    free(X.send_cap);
    for (int k = 0; k < 2; k++) {
        free(X.recv[k]);
        free(X.recv_cap[k]);
        free(X.stage[k]);
        free(X.stage_cap[k]);
    }
    free(X.send_len);
    free(X.recv_len);
    memset(&X, 0, sizeof X);
}

/* Called from a signal handler (no allocation, no lock): the section's
 * other ranks are told, as by mpiw_end_announce, and this one finalizes
 * with them before it dies by its signal, so that none of them sees it
 * vanish in a round (over TCP each printed "An MPI communication peer
 * process has unexpectedly disconnected"). */
void mpiw_end_crashed(int code)
{
    if (!M.lib || M.finalized || X.ranks < 2)
        return;
    mpiw_end_announce(X.ranks, code);
    M.finalized = 1;
    M.finalize();
}

int mpiw_section(int ranks, int32_t *const *flags, int nflags)
{
    mpiw_section_end();
    M.comm_rank(M.comm, &X.me);
    X.ranks = ranks;
    X.flags = flags;
    X.nflags = nflags;
    X.words = HDR_FLAGS + nflags;
    size_t n = (size_t)ranks;
    X.out = calloc(n * (size_t)X.words, sizeof *X.out);
    X.in = calloc(n * (size_t)X.words, sizeof *X.in);
    X.hreqs = calloc(2 * n, sizeof *X.hreqs);
    X.hstat = calloc(2 * n, sizeof *X.hstat);
    X.out_words = calloc(n, sizeof *X.out_words);
    X.last_flags = malloc((size_t)(nflags > 0 ? nflags : 1) * sizeof *X.last_flags);
    for (int i = 0; X.last_flags && i < nflags; i++)
        X.last_flags[i] = INT32_MIN; /* the first headers are full */
    X.send = calloc(n, sizeof *X.send);
    X.send_cap = calloc(n, sizeof *X.send_cap);
    for (int k = 0; k < 2; k++) {
        X.recv[k] = calloc(n, sizeof *X.recv[k]);
        X.recv_cap[k] = calloc(n, sizeof *X.recv_cap[k]);
        X.stage[k] = calloc(n, sizeof *X.stage[k]);
        X.stage_cap[k] = calloc(n, sizeof *X.stage_cap[k]);
        if (!X.recv[k] || !X.recv_cap[k] || !X.stage[k] || !X.stage_cap[k])
            return -1;
    }
    X.send_len = calloc(n, sizeof *X.send_len);
    X.recv_len = calloc(n, sizeof *X.recv_len);
    mpiw_posted = 0;
    if (mpiw_msg_section() != 0)
        return -1;
    if (!X.out || !X.in || !X.hreqs || !X.hstat || !X.out_words || !X.last_flags || !X.send || !X.send_cap || !X.send_len || !X.recv_len)
        return -1;
    return 0;
}

/* Room for n bytes in *buf of capacity *cap. */
static char *reserve(char **buf, int64_t *cap, int64_t n)
{
    if (n > *cap) {
        char *p = realloc(*buf, (size_t)n);
        if (!p)
            return NULL;
        *buf = p;
        *cap = n;
    }
    return *buf;
}

char *mpiw_send_buffer(int r, int64_t n)
{
    char *p = reserve(&X.send[r], &X.send_cap[r], n);
    X.send_len[r] = p ? n : 0;
    return p;
}

int mpiw_send_apart(int r, char *at, int64_t len)
{
    if (X.napart == X.apart_cap) {
        int cap = X.apart_cap ? 2 * X.apart_cap : 16;
        struct apart *a = realloc(X.apart, (size_t)cap * sizeof *a);
        if (!a)
            return -1;
        X.apart = a;
        X.apart_cap = cap;
    }
    X.apart[X.napart++] = (struct apart){at, len, r};
    return 0;
}

char *mpiw_stage_buffer(int r, int64_t n)
{
    int k = X.round & 1;
    return reserve(&X.stage[k][r], &X.stage_cap[k][r], n > 0 ? n : 1);
}

/* Room for n more requests of the payloads sent apart (a realloc: a
 * request is a handle, which may move while MPI works on it). */
static int reserve_apart(int64_t n)
{
    if (X.nareq + n <= X.areq_cap)
        return 0;
    int64_t cap = X.nareq + n > 2 * (int64_t)X.areq_cap ? X.nareq + n : 2 * (int64_t)X.areq_cap;
    MPI_Request *q = realloc(X.areqs, (size_t)cap * sizeof *q);
    if (!q)
        return -1;
    X.areqs = q;
    X.areq_cap = (int)cap;
    return 0;
}

/* Posts the receives of a payload sent apart, one per block_limit bytes in
 * order (its sends go with the blocks', mpiw_queue_send). */
static int post_apart(char *at, int64_t len, int r)
{
    if (reserve_apart(pieces(len)) != 0)
        return -1;
    for (int64_t o = 0; o < len; o += block_limit) {
        int count = (int)(len - o < block_limit ? len - o : block_limit);
        if (M.irecv(at + o, count, M.byte, r, apart_tag(), M.comm, &X.areqs[X.nareq]) != MPI_SUCCESS)
            return -1;
        X.nareq++;
    }
    return 0;
}

int mpiw_recv_apart(int r, char *at, int64_t len)
{
    return post_apart(at, len, r);
}

void mpiw_traffic(int64_t *msgs, int64_t *bytes)
{
    *msgs = X.sent_msgs;
    *bytes = X.sent_bytes;
}

int mpiw_kind(int r)
{
    return r >= 0 && r < X.ranks ? header_kind(X.in + r * X.words) : -1;
}

int mpiw_step(int r)
{
    if (r < 0 || r >= X.ranks)
        return -1;
    const int32_t *h = X.in + r * X.words;
    return header_full(h) ? h[HDR_STEP] : h[HDR_FIRST] & HDR_STEP_MASK;
}

int mpiw_round(int kind, int step)
{
    memset(X.send_len, 0, (size_t)X.ranks * sizeof *X.send_len);
    X.napart = 0;
    X.nareq = 0;
    if (mpiw_posted) {
        mpiw_posted = 0;
        if (!packers.pack || packers.pack() != 0)
            return MPIW_UNPACKED;
    }
    make_headers(kind, step);
    int rc = exchange_headers();
    if (rc != 0)
        return rc == MPIW_WAIT_STOPPED ? MPIW_STOPPED : MPIW_FAILED;
    X.sent_msgs += X.ranks - 1;
    for (int r = 0; r < X.ranks; r++)
        if (r != X.me)
            X.sent_bytes += X.out_words[r] * (int64_t)sizeof *X.out;
    for (int r = 0; r < X.ranks; r++)
        if (X.send_len[r] > 0) {
            X.sent_msgs += pieces(X.send_len[r]);
            X.sent_bytes += X.send_len[r];
        }
    for (int i = 0; i < X.napart; i++) {
        X.sent_msgs += pieces(X.apart[i].len);
        X.sent_bytes += X.apart[i].len;
    }
    for (int r = 0; r < X.ranks; r++)
        if (header_kind(X.in + r * X.words) != kind)
            return MPIW_DIVERGED;
    X.round++;
    int k = X.round & 1; /* the blocks of the last round stay valid: the Go side reads them in place */
    int64_t blocks = 0;
    for (int r = 0; r < X.ranks; r++)
        blocks += X.send_len[r];
    for (int r = 0; r < X.ranks; r++) {
        const int32_t *h = X.in + r * X.words;
        X.recv_len[r] = 0;
        if (r == X.me || !header_full(h))
            continue;
        for (int i = 0; i < X.nflags; i++)
            if (h[HDR_FLAGS + i] > atomic_load((_Atomic int32_t *)X.flags[i]))
                atomic_store((_Atomic int32_t *)X.flags[i], h[HDR_FLAGS + i]);
        X.recv_len[r] = (int64_t)((uint64_t)(uint32_t)h[HDR_BYTES_LO] | (uint64_t)(uint32_t)h[HDR_BYTES_HI] << 32);
        blocks += X.recv_len[r];
        if (X.recv_len[r] > 0 && !reserve(&X.recv[k][r], &X.recv_cap[k][r], X.recv_len[r]))
            return MPIW_FAILED;
    }
    if (blocks == 0)
        return 0; /* an empty superstep's round: the headers were all */
    test_delay();
    int64_t apart_msgs = 0;
    for (int i = 0; i < X.napart; i++)
        apart_msgs += pieces(X.apart[i].len);
    if (mpiw_post(X.ranks, X.round & BLOCK_TAGS, X.send, X.send_len, X.recv[k], X.recv_len, apart_msgs) != 0)
        return MPIW_FAILED;
    /* payloads sent apart: after their blocks, in the order their records
     * take in them (the receiver posts its receives in that order); sent
     * with the blocks' window (mpiw_next_arrival completes them) */
    for (int i = 0; i < X.napart; i++)
        if (mpiw_queue_send(X.apart[i].at, X.apart[i].len, X.apart[i].rank, apart_tag()) != 0)
            return MPIW_FAILED;
    char order[256];
    int at = 0;
    for (;;) {
        int r = mpiw_next_arrival();
        if (r == -1)
            break;
        if (r < 0)
            return MPIW_FAILED;
        if (T.trace && at < (int)sizeof order - 16)
            at += snprintf(order + at, sizeof order - (size_t)at, " %d", r);
        if (!packers.unpack || packers.unpack(r, X.recv[k][r], X.recv_len[r]) != 0) {
            /* the job ends: the other blocks are received all the same, so
             * that no receive is left into buffers that are freed, nor a
             * rank's send waiting for one (mpiw_end_announce) */
            while ((r = mpiw_next_arrival()) >= 0)
                ;
            if (X.nareq > 0)
                M.waitall(X.nareq, X.areqs, NULL);
            X.nareq = 0;
            return MPIW_UNPACKED;
        }
    }
    if (T.trace && at > 0)
        fprintf(stderr, "ebsp mpi: rank %d round %d: blocks arrived from%s\n", X.me, X.round, order);
    /* the payloads sent apart: those to this rank land in their targets or
     * in the rebuilt blocks, those from it leave the shim's logs free */
    if (X.nareq > 0) {
        int rc = M.waitall(X.nareq, X.areqs, NULL);
        X.nareq = 0;
        if (rc != MPI_SUCCESS)
            return MPIW_FAILED;
    }
    return 0;
}
