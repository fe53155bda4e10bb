/*
 * Messages outside the rounds: point-to-point messages between the ranks
 * of a section, and gathers, on a communicator of their own (a face's
 * channels, LQCD's, use them; the rounds' tags cannot meet them). It knows
 * nothing of the face: headers, bodies and tags are the caller's.
 *
 * Any thread may call; one MPI call at a time is ensured here with a
 * mutex (the promise of MPI_THREAD_SERIALIZED; mpi.c says why MPI runs at
 * its single level). The waits (mpiw_gather, a round's exchange
 * of headers) run the progress hook while they wait, so that a rank whose
 * cores all wait in a barrier still answers another rank's messages. A
 * rank may wait so while another blocks in MPI: the rounds exchange their
 * headers with point-to-point messages, which match whichever way each
 * side waits (an MPI_Alltoall would not match an MPI_Ialltoall).
 */
#include "mpi.h"
#include "abi.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static MPI_Comm comm;          /* the section's, duplicated */
static void (*progress)(void); /* mpiw_progress */
static int (*stopped)(void);   /* mpiw_stop_check */
static void (*end_hook)(void); /* mpiw_on_end */
static _Atomic int ended;      /* another rank announced the end of the job */

/* Takes another rank's announcement of the job's end, if one came (lock
 * held): 1 the first time, when the caller runs end_hook. */
static int take_end(void)
{
    if (atomic_load(&ended) || !M.lib || M.finalized)
        return 0;
    int flag = 0;
    MPI_Message msg;
    MPI_Status st;
    if (M.improbe(MPI_ANY_SOURCE, MPIW_END_TAG, M.world, &flag, &msg, &st) != MPI_SUCCESS || !flag)
        return 0;
    int32_t code;
    M.mrecv(&code, 1, M.integer, &msg, &st);
    atomic_store(&ended, 1);
    return 1;
}

/* Looks for the announcement every END_POLLS calls of a wait's loop. */
enum { END_POLLS = 64 };

static void look_for_end(unsigned polls, int locked)
{
    if (polls % END_POLLS != END_POLLS - 1 || atomic_load(&ended))
        return;
    if (!locked)
        pthread_mutex_lock(&lock);
    int now = take_end();
    if (!locked)
        pthread_mutex_unlock(&lock);
    void (*hook)(void) = end_hook;
    if (now && hook)
        hook();
}

int mpiw_end_arrived(void)
{
    look_for_end(END_POLLS - 1, 0);
    return atomic_load(&ended);
}

void mpiw_on_end(void (*hook)(void))
{
    end_hook = hook;
}

/* A small send in flight, after its bytes in its buffer (at
 * MPIW_LISTEN_MAX in a pool's): the buffer stays here until MPI sent it. */
struct small {
    MPI_Request req;
    struct small *next;
    char *buf;
    int pooled;
};
static struct small *smalls;

/* The buffers of small messages, the posted receives' and the small
 * sends', each malloc'd (free() releases one as well as mpiw_small_release),
 * kept for reuse: a packed LQCD message of a 2 x 8 halo took two mallocs,
 * two frees and two copies of its bytes on its way, one of each per side. */
enum { POOL_MAX = 64, POOL_BYTES = MPIW_LISTEN_MAX + sizeof(struct small) };
_Static_assert(MPIW_LISTEN_MAX % sizeof(void *) == 0, "a small send's record is aligned");
static struct {
    pthread_mutex_t lock;
    int n;
    void *buf[POOL_MAX];
} pool = {.lock = PTHREAD_MUTEX_INITIALIZER};

void *mpiw_small_buffer(void)
{
    pthread_mutex_lock(&pool.lock);
    void *buf = pool.n ? pool.buf[--pool.n] : NULL;
    pthread_mutex_unlock(&pool.lock);
    return buf ? buf : malloc(POOL_BYTES);
}

void mpiw_small_release(void *buf)
{
    if (!buf)
        return;
    pthread_mutex_lock(&pool.lock);
    if (pool.n < POOL_MAX) {
        pool.buf[pool.n++] = buf;
        buf = NULL;
    }
    pthread_mutex_unlock(&pool.lock);
    free(buf);
}

struct mpiw_send {
    MPI_Request req[2]; /* the head (with a small body), then a large body */
    const void *head, *body;
    int head_len, body_len;
    int n;
    int active;
    char *joined; /* a small body's message: the head, then the body, copied at each start */
};

/* The receives posted for MPIW_TAG_LQCD (mpiw_receive), taken in the
 * order they were posted: MPI matches messages to them in that order, so
 * each sender's messages are taken in the order it sent them. */
enum { LISTEN_SLOTS = 4 };
static struct {
    int posted, oldest;
    MPI_Request req[LISTEN_SLOTS];
    char *buf[LISTEN_SLOTS];
} listen;

/* Posts the receive of slot i (lock held). */
static int listen_post(int i)
{
    if (!listen.buf[i] && !(listen.buf[i] = mpiw_small_buffer()))
        return -1;
    return M.irecv(listen.buf[i], MPIW_LISTEN_MAX, M.byte, MPI_ANY_SOURCE, MPIW_TAG_LQCD, comm, &listen.req[i]) ==
                   MPI_SUCCESS
               ? 0
               : -1;
}

/* Withdraws the posted receives (lock held): a message they took and
 * nobody asked for is dropped, as one left unexpected is with comm. */
static void listen_end(void)
{
    for (int i = 0; i < LISTEN_SLOTS && listen.posted; i++) {
        if (listen.req[i] && M.cancel(&listen.req[i]) == MPI_SUCCESS)
            M.wait(&listen.req[i], NULL);
        listen.req[i] = NULL;
    }
    for (int i = 0; i < LISTEN_SLOTS; i++) {
        mpiw_small_release(listen.buf[i]);
        listen.buf[i] = NULL;
    }
    listen.posted = listen.oldest = 0;
}

/* The message the oldest posted receive took, as mpiw_receive gives it,
 * and that receive posted again; NULL when none (lock held). */
static void *listen_take(int *rank, int *len)
{
    if (!listen.posted) {
        for (int i = 0; i < LISTEN_SLOTS; i++)
            if (listen_post(i) != 0) {
                listen.posted = i > 0; /* withdraws those posted */
                listen_end();
                return NULL;
            }
        listen.posted = 1;
    }
    int i = listen.oldest, done = 0, n = 0;
    MPI_Status st;
    if (M.test(&listen.req[i], &done, &st) != MPI_SUCCESS || !done || M.get_count(&st, M.byte, &n) != MPI_SUCCESS)
        return NULL;
    void *buf = listen.buf[i]; /* the caller's now; another is posted */
    listen.buf[i] = NULL;
    *rank = st.source;
    *len = n;
    listen.oldest = (i + 1) % LISTEN_SLOTS;
    if (listen_post(i) != 0) { /* out of memory: the others are withdrawn, and posted again later */
        listen.req[i] = NULL;
        listen_end();
    }
    return buf;
}

int mpiw_msg_section(void)
{
    mpiw_msg_section_end();
    return M.comm_dup(M.comm, &comm) == MPI_SUCCESS ? 0 : -1;
}

/* Completed small sends are freed (lock held). */
static void reap(int wait)
{
    for (struct small **p = &smalls; *p;) {
        struct small *s = *p;
        int done = 0;
        if (wait)
            done = M.wait(&s->req, NULL) == MPI_SUCCESS;
        else if (M.test(&s->req, &done, NULL) != MPI_SUCCESS)
            done = 1; /* an error: the message is lost either way */
        if (done) {
            *p = s->next;
            if (s->pooled)
                mpiw_small_release(s->buf);
            else
                free(s->buf);
            continue;
        }
        p = &s->next;
    }
}

void mpiw_msg_section_end(void)
{
    pthread_mutex_lock(&lock);
    reap(1);
    listen_end();
    if (comm)
        M.comm_free(&comm);
    comm = NULL;
    progress = NULL;
    pthread_mutex_unlock(&lock);
}

void mpiw_progress(void (*poll)(void))
{
    progress = poll;
}

void mpiw_stop_check(int (*is_stopped)(void))
{
    stopped = is_stopped;
}

static void run_progress(void)
{
    void (*poll)(void) = progress;
    if (poll)
        poll();
}

struct mpiw_send *mpiw_send_init(const void *head, int head_len, const void *body, int body_len, int rank, int tag)
{
    if (tag == MPIW_TAG_LQCD && head_len + (body_len < MPIW_BODY_APART ? body_len : 0) > MPIW_LISTEN_MAX)
        return NULL; /* more than a posted receive takes */
    struct mpiw_send *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    pthread_mutex_lock(&lock);
    int ok;
    s->head = head;
    s->body = body;
    s->head_len = head_len;
    s->body_len = body_len;
    if (body_len < MPIW_BODY_APART) {
        /* one contiguous message, the two pieces copied at each start: MPI
         * sends a small message by copying it anyway, and packs a
         * non-contiguous one through its datatype engine (8-byte LQCD
         * ring at 2 x 1: see bench/RESULTS.md) */
        s->n = 1;
        s->joined = malloc((size_t)head_len + (size_t)body_len);
        ok = s->joined && M.send_init(s->joined, head_len + body_len, M.byte, rank, tag, comm, &s->req[0]) == MPI_SUCCESS;
    } else {
        /* a large body contiguous, as a message of its own: MPI moves it
         * with one copy (single-copy shared memory), where a non-contiguous
         * one goes through its fragments, packed and unpacked */
        s->n = 2;
        ok = M.send_init(head, head_len, M.byte, rank, tag, comm, &s->req[0]) == MPI_SUCCESS;
        if (ok && M.send_init(body, body_len, M.byte, rank, tag | MPIW_BODY, comm, &s->req[1]) != MPI_SUCCESS) {
            M.request_free(&s->req[0]);
            ok = 0;
        }
    }
    pthread_mutex_unlock(&lock);
    if (!ok) {
        free(s->joined);
        free(s);
        return NULL;
    }
    return s;
}

int mpiw_send_start(struct mpiw_send *s)
{
    if (s->joined) {
        memcpy(s->joined, s->head, (size_t)s->head_len);
        if (s->body_len > 0)
            memcpy(s->joined + s->head_len, s->body, (size_t)s->body_len);
    }
    pthread_mutex_lock(&lock);
    int rc = M.start(&s->req[0]);
    if (rc == MPI_SUCCESS && s->n == 2)
        rc = M.start(&s->req[1]);
    s->active = rc == MPI_SUCCESS;
    pthread_mutex_unlock(&lock);
    return rc == MPI_SUCCESS ? 0 : -1;
}

int mpiw_send_test(struct mpiw_send *s)
{
    if (!s->active)
        return 1;
    pthread_mutex_lock(&lock);
    int done = 0;
    int rc = M.testall(s->n, s->req, &done, NULL);
    if (rc == MPI_SUCCESS && done)
        s->active = 0;
    pthread_mutex_unlock(&lock);
    return rc != MPI_SUCCESS ? -1 : done;
}

int mpiw_send_free(struct mpiw_send *s)
{
    if (!s)
        return 0;
    pthread_mutex_lock(&lock);
    int done = !s->active;
    if (!done && M.testall(s->n, s->req, &done, NULL) != MPI_SUCCESS)
        done = 1;
    /* a send still in flight (its receiver may never take it) completes, or
       not, without these requests: MPI frees them when it can */
    for (int i = 0; i < s->n; i++)
        M.request_free(&s->req[i]);
    pthread_mutex_unlock(&lock);
    if (done)
        free(s->joined); /* else MPI may still read it: kept, as the caller keeps head and body */
    free(s);
    return !done;
}

/* Sends len bytes of buf, its record at buf + at (lock held). */
static int send_kept(char *buf, size_t at, int len, int rank, int tag, int pooled)
{
    struct small *s = (struct small *)(buf + at);
    s->buf = buf;
    s->pooled = pooled;
    reap(0);
    int rc = M.isend(buf, len, M.byte, rank, tag, comm, &s->req);
    if (rc == MPI_SUCCESS) {
        s->next = smalls;
        smalls = s;
    }
    return rc == MPI_SUCCESS ? 0 : -1;
}

int mpiw_send_small_buffer(void *buf, int len, int rank, int tag)
{
    if (len > MPIW_LISTEN_MAX)
        return -1;
    pthread_mutex_lock(&lock);
    int rc = send_kept(buf, MPIW_LISTEN_MAX, len, rank, tag, 1);
    pthread_mutex_unlock(&lock);
    return rc;
}

int mpiw_send_small(const void *bytes, int len, int rank, int tag)
{
    if (tag == MPIW_TAG_LQCD && len > MPIW_LISTEN_MAX)
        return -1; /* more than a posted receive takes */
    int pooled = len <= MPIW_LISTEN_MAX;
    size_t at = pooled ? MPIW_LISTEN_MAX : ((size_t)len + 7) & ~(size_t)7;
    char *buf = pooled ? mpiw_small_buffer() : malloc(at + sizeof(struct small));
    if (!buf)
        return -1;
    memcpy(buf, bytes, (size_t)len);
    pthread_mutex_lock(&lock);
    int rc = send_kept(buf, at, len, rank, tag, pooled);
    pthread_mutex_unlock(&lock);
    if (rc != 0 && pooled)
        mpiw_small_release(buf);
    else if (rc != 0)
        free(buf);
    return rc;
}

void *mpiw_receive(int tag, int *rank, int *len)
{
    if (!comm || pthread_mutex_trylock(&lock) != 0)
        return NULL; /* another thread looks already */
    void *buf = NULL;
    int flag = 0, n = 0;
    MPI_Message msg;
    MPI_Status st;
    if (tag == MPIW_TAG_LQCD)
        buf = listen_take(rank, len);
    else if (M.improbe(MPI_ANY_SOURCE, tag, comm, &flag, &msg, &st) == MPI_SUCCESS && flag &&
        M.get_count(&st, M.byte, &n) == MPI_SUCCESS) {
        buf = malloc(n > 0 ? (size_t)n : 1);
        /* the message is matched: it must be received, into a buffer or not at all */
        static char sink[1];
        if (M.mrecv(buf ? buf : sink, buf ? n : 0, M.byte, &msg, &st) != MPI_SUCCESS) {
            free(buf);
            buf = NULL;
        }
        *rank = st.source;
        *len = n;
    }
    if (smalls)
        reap(0);
    static unsigned calls; /* counts racily: a look for the job's end now and then */
    int now = ++calls % END_POLLS == 0 && take_end();
    pthread_mutex_unlock(&lock);
    void (*hook)(void) = end_hook;
    if (now && hook)
        hook();
    return buf;
}

int mpiw_receive_body(int rank, int tag, void *buf, int len)
{
    if (len <= 0)
        return 0;
    MPI_Request req;
    pthread_mutex_lock(&lock);
    int rc = M.irecv(buf, len, M.byte, rank, tag | MPIW_BODY, comm, &req);
    if (rc == MPI_SUCCESS)
        rc = M.wait(&req, NULL);
    pthread_mutex_unlock(&lock);
    return rc == MPI_SUCCESS ? 0 : -1;
}

/* Polls before a wait with no progress hook gives up the CPU: an empty
 * round's headers come back within microseconds. */
enum { SPIN_POLLS = 256 };

/* Waits for the n requests, running the progress hook meanwhile (lock
 * not held while it runs); MPIW_WAIT_STOPPED once the run is stopped (a
 * rank whose partner computes for ever must leave when its watchdog
 * stops the run). */
static int wait_progressing(int n, MPI_Request *reqs, MPI_Status *statuses)
{
    /* Without a hook, nothing of this rank wants MPI meanwhile but, rarely,
     * the watchdog: the first polls keep the lock (a lock and an unlock
     * less per poll: the header that ends an empty superstep is seen
     * sooner). */
    void (*hook)(void) = progress;
    unsigned spun = 0;
    if (!hook) {
        int done = 0, rc = MPI_SUCCESS;
        pthread_mutex_lock(&lock);
        for (unsigned polls = 0; polls < SPIN_POLLS && !done && rc == MPI_SUCCESS; polls++)
            rc = M.testall(n, reqs, &done, statuses);
        pthread_mutex_unlock(&lock);
        if (rc != MPI_SUCCESS)
            return -1;
        if (done)
            return 0;
        spun = SPIN_POLLS;
    }
    for (unsigned polls = spun;; polls++) {
        int done = 0;
        pthread_mutex_lock(&lock);
        int rc = M.testall(n, reqs, &done, statuses);
        pthread_mutex_unlock(&lock);
        if (rc != MPI_SUCCESS)
            return -1;
        if (done)
            return 0;
        look_for_end(polls, 0);
        if (stopped && stopped())
            return MPIW_WAIT_STOPPED;
        run_progress();
        if (progress || polls >= SPIN_POLLS)
            sched_yield(); /* the other ranks may be processes waiting for this CPU */
    }
}

int mpiw_gather(const void *send, int len, void *recv, const int *lens, const int *displs)
{
    MPI_Request req;
    pthread_mutex_lock(&lock);
    int rc = M.iallgatherv(send, len, M.byte, recv, lens, displs, M.byte, comm, &req);
    pthread_mutex_unlock(&lock);
    if (rc != MPI_SUCCESS)
        return -1;
    return wait_progressing(1, &req, NULL);
}

int mpiw_complete(int n, MPI_Request *reqs, MPI_Status *statuses)
{
    return wait_progressing(n, reqs, statuses);
}
