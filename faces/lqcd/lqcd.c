/*
 * The LQCD message-passing API (include/lqcd_msg.h) on the emulated mesh.
 *
 * Channels are C structs (never Go memory). A declaration does all the
 * expensive work: it validates, finds the receive buffer by name in the
 * receiving core's directory (or files the send as an orphan there until
 * the receiver declares the name), and checks sizes. A start is then a few
 * atomic stores, plus the copy when the other side is ready:
 *   - startSend: if the receive is armed, the sender copies its bytes into
 *     the receiver's buffer at once; otherwise the send waits in the
 *     receive's queue (FIFO);
 *   - startReceive: if a send is queued, the receiver copies it at once;
 *     otherwise the receive is armed for the next sender.
 * The decision "copy now or queue / arm" is taken under a tiny per-receive
 * spin lock; the copy itself runs outside it. Completion is an atomic
 * state per channel; the side that completes the other's operation bumps
 * that core's event word and wakes it only when it sleeps in a wait
 * (futex), so a completion costs no system call in the common case.
 *
 * Waits spin a little (sched_pause: cores outnumber CPUs), then wait for
 * the core's event word to change (sched_wait) in slices, checking the
 * deadline, a stopped run and a partner that left its kernel.
 *
 * Collectives use the scheduler's barrier with their own kind
 * (WHERE_LQCD), so the deadlock detector sees them: cores in an LQCD
 * collective and cores in bsp_sync is a reported divergence, not a hang.
 * Each core publishes its contribution in a slot (double-buffered by the
 * parity of the collective's sequence number), and after the barrier sums
 * the slots in core order: the same bits on every core, in every run.
 *
 * In a BSPlib section spread over MPI ranks (world/mpi) a channel to a
 * core of another rank is a persistent MPI send of a header and the
 * buffer, read in place (declared once, started many times; a large
 * buffer as a message of its own, which MPI moves with one copy). The
 * receiving rank takes such messages in whenever one of its cores calls
 * the API or waits (lqcd_poll; also while it waits in a barrier round or a
 * collective): into the receive buffer when it is armed, else as a staged
 * send (STAGED_MAGIC) that the receive's queue holds like a local one.
 * The send completes when MPI has its bytes (its buffer may be reused:
 * the API's own definition), which may be before the receive is armed; a
 * receiver that cannot take them (sizes differ, the core left without
 * declaring the buffer) says so in a message back, and the send fails. Collectives add a gather of the
 * slots (and arrays) of every rank after the barrier, so the sums run
 * over the same values in the same core order: the same bits in every
 * layout.
 */
#define _GNU_SOURCE
#include "../../capi/shim.h"
#include "../../world/mpi/mpi.h"

#include <lqcd_msg.h>

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Go side (capi/lqcd.go). */
extern int goLqcdPlace(int *dims, int ndims, int nprocs, int *pid_of_rank, char *err, int errlen);
extern void goLqcdAbort(int pid, char *text);
extern void goLqcdDeadlock(char *details);

enum { SEND_MAGIC = 0x4c515344, RECV_MAGIC = 0x4c515244, STAGED_MAGIC = 0x4c515354 };
enum { SPIN_YIELDS = 20, SLICE_MS = 20, ERR_MAX = 256 };
/* Across MPI ranks a waiting core looks for its messages itself: it
 * polls, letting other cores run between looks, for POLL_SPIN_NS (a
 * message's protocol takes several steps of each side: with a 50 µs
 * sleep between looks an 8-byte ring exchange took 8.6 µs under threads,
 * and parked coroutines, woken each millisecond, 0.5-1.8 ms), then
 * sleeps POLL_NS between looks. */
#define POLL_SPIN_NS 2000000u
#define POLL_NS 50000u
/* A waiting core looks whether every core is blocked for good at its
 * first sleep, then at most this often: the last core to block sees it at
 * once; a deadlock that a core entering a barrier completes is seen by a
 * waiter within a slice and this. */
#define DEADLOCK_LOOK_NS 20000000u

/* Channel states. A send: IDLE -> PENDING -> DONE (-> PENDING ...).
 * A receive: IDLE -> ARMED -> CLAIMED (a copy in progress) -> DONE. */
enum { CH_IDLE = 0, CH_PENDING, CH_ARMED, CH_CLAIMED, CH_DONE };

struct lqcd_chan {
    uint32_t magic;
    int owner;             /* the declaring core */
    char *buf;
    int nbytes;
    int name;              /* receive: its name; send: the remote buffer's */
    int remote;            /* send: the receiving core */
    int relative;          /* send: the direction it was declared with (0: declareSendTo) */
    _Atomic int state;
    _Atomic int err;       /* sticky: found after the declaration */
    struct lqcd_chan *_Atomic target; /* send: the receive, NULL while an orphan */
    /* receive */
    atomic_flag lock;                 /* guards state changes from ARMED and the queue */
    struct lqcd_chan *qhead, *qtail;  /* sends started before this receive was armed */
    struct lqcd_chan *senders;        /* sends declared to this buffer (dir lock) */
    /* send */
    struct lqcd_chan *qnext;
    struct lqcd_chan *sender_next;
    /* lists */
    struct lqcd_chan *dir_next;       /* send: the next orphan of its name */
    struct lqcd_chan *owned_next;
    /* across MPI ranks */
    int rank;                         /* send: the receiver's rank, staged: the sender's; -1 within this rank */
    int id;                           /* send: its index in L.wired; staged: the sender's */
    struct wire_head *head;           /* send: sent before the bytes; staged: the message (malloc'd) */
    struct mpiw_send *wire;           /* send: the persistent MPI send */
};

/* What goes between ranks: a send's bytes after a DATA head; a REFUSED
 * head back when they cannot be taken (err: why). */
enum { WIRE_DATA = 1, WIRE_REFUSED, WIRE_TAG = MPIW_TAG_LQCD };
struct wire_head {
    int32_t kind, src, dst, name, nbytes, id, err, pad;
};

struct bcast {
    int name, nbytes;
    char *stage;
    struct lqcd_chan **sends; /* one per core, NULL for the sender itself */
    struct bcast *next;
};

/* A buffer name of a core's directory: its receive, once declared, and
 * the sends declared to it before, in order of arrival. A hash table, not
 * a list: 4 cores declaring 16,000 receives each walked lists of what they
 * had declared before (3.5 s; now linear). */
struct dir_entry {
    int name, used;
    struct lqcd_chan *recv;
    struct lqcd_chan *ohead, *otail; /* orphans */
};

/* The live handles: every channel a declaration made in this run, by
 * address. The calls look a handle up here before they touch it, so a
 * wild pointer is refused, never followed. Open addressing, at most half
 * full; filled under a lock, read without one: a table that grows is
 * replaced, and the old one stays (a reader may be in it) until the run
 * ends, as do the channels. */
struct handle_table {
    struct handle_table *older;
    size_t mask;
    struct lqcd_chan *_Atomic slot[];
};

/* The last error of a core (getErrorNumber, getErrorString). */
struct lqcd_err {
    int no;
    char str[ERR_MAX];
};

/* One core's state. Padded so that cores do not share cache lines. */
struct lqcd_core {
    struct lqcd_err err;      /* per core, not per thread: coroutine cores change threads */
    _Atomic unsigned ev;      /* bumped when another core completes one of ours */
    _Atomic int sleeping;     /* 1: this core waits for ev to change */
    /* Odd while the core sleeps in an LQCD wait, for the deadlock check:
     * raised (a locked instruction, a full fence) when it begins to sleep
     * and when it wakes, so a core that ran in between is seen. */
    _Atomic unsigned wait_seq;
    struct lqcd_chan *_Atomic waited; /* what it waits for then */
    const char *_Atomic wait_call;
    int init;                 /* initMachine called (and not shut down) */
    _Atomic int shut;         /* shutdownMachine called */
    unsigned coll;            /* collectives done by this core */
    pthread_mutex_t dir_lock; /* the directory */
    struct dir_entry *dir;    /* by buffer name: open addressing, dir_mask + 1 entries */
    size_t dir_mask, dir_used;
    struct lqcd_chan *owned;
    struct bcast *bcasts;
    double *tmp;              /* array sums: this core's share of the result */
    size_t tmp_cap;
    int topo;                 /* declareTopology succeeded on this core */
    int coords[LQCD_MAX_DIMS];
    int nb[2 * LQCD_MAX_DIMS]; /* [2d]: core at +(d+1), [2d+1]: at -(d+1) */
} __attribute__((aligned(64)));

/* A collective's contribution. */
union lqcd_val {
    int64_t i;
    double d;
    const void *p;
};
struct lqcd_slot {
    int op, len;
    union lqcd_val v;
} __attribute__((aligned(64)));

enum { OP_BARRIER = 1, OP_OR, OP_SUM_INT, OP_SUM_FLOAT, OP_SUM_DOUBLE, OP_SUM_FLOAT_ARRAY, OP_SUM_DOUBLE_ARRAY };
static const char *const op_names[] = {
    "?", "waitForBarrier", "globalOr", "sumInt", "sumFloat", "sumDouble", "sumFloatArray", "sumDoubleArray",
};

static struct {
    int n;
    struct lqcd_core *cores;
    struct lqcd_slot *slots[2];
    pthread_mutex_t topo_lock;
    int topo;                 /* a topology was declared in this run */
    int ndims, dims[LQCD_MAX_DIMS];
    int *pid_of_rank, *rank_of_pid;
    _Atomic int diverged;     /* cores in different collectives: reported */
    _Atomic int deadlocked;   /* an LQCD deadlock: reported */
    /* the cores of this process, first .. first+count-1 (all of the n
     * outside an MPI section) */
    int first, count;
    int ranks;                /* an MPI section's ranks, 0 outside one */
    pthread_mutex_t wired_lock;
    struct lqcd_chan **wired; /* sends to other ranks, by id */
    int nwired, wired_cap;
    int gather_failed;        /* the last gather of this rank's first core */
    char *gathered;           /* array sums: every core's array */
    size_t gathered_cap;
    struct handle_table *_Atomic handles;
    size_t nhandles;
    pthread_mutex_t handles_lock;
} L = {.topo_lock = PTHREAD_MUTEX_INITIALIZER,
       .wired_lock = PTHREAD_MUTEX_INITIALIZER,
       .handles_lock = PTHREAD_MUTEX_INITIALIZER};

static int local(int pid)
{
    return (unsigned)(pid - L.first) < (unsigned)L.count;
}

static int rank_of(int pid)
{
    return L.ranks ? pid / ebsp_world_per_rank : 0;
}

/* Across MPI ranks (below the operations). */
static void lqcd_poll(void);
static void answer(struct lqcd_chan *st, int err);
static void refresh(struct lqcd_chan *ch);
static struct lqcd_chan *declare_wired(struct lqcd_core *c, const char *call, void *buffer, int nbytes, int host,
                                       int name, int relative);
static void send_failed(const struct lqcd_chan *s, const char *call, int err, const char *buffer);

/* ---- errors (per core; per thread off the cores) ---- */

static __thread struct lqcd_err thread_err;

/* The caller's error state. A function of its own, so that no caller keeps
 * a TLS address across a wait (a coroutine core may resume on another
 * thread). */
__attribute__((noinline)) static struct lqcd_err *caller_err(void)
{
    struct ebsp_core *self = ebsp_self;
    if (self && L.cores && self->pid < L.n)
        return &L.cores[self->pid].err;
    return &thread_err;
}

__attribute__((format(printf, 2, 3))) static void seterr(int no, const char *format, ...)
{
    struct lqcd_err *e = caller_err();
    va_list ap;
    va_start(ap, format);
    vsnprintf(e->str, sizeof e->str, format, ap);
    va_end(ap);
    e->no = no;
}

char *getErrorString(void)
{
    struct lqcd_err *e = caller_err();
    if (e->no == LQCD_OK)
        return (char *)"no error";
    return e->str;
}

int getErrorNumber(void)
{
    return caller_err()->no;
}

void clearError(void)
{
    struct lqcd_err *e = caller_err();
    e->no = LQCD_OK;
    e->str[0] = 0;
}

/* Tells core pid that one of its operations completed: nothing when it is
 * not waiting, else the scheduler's wake for that core only (a futex
 * system call for a thread, a poke of its worker for a coroutine; not
 * every parked core: a
 * 16-core halo exchange made each notify wake them all, and all of them
 * went round their wait loops). A waiter stores its sleeping word and then
 * looks at the state of the operation it waits for once more; the caller
 * stored that state before this fence: one of the two sees the other. The
 * event count is raised only for a waiter: its cache line then stays with
 * the cores that read it (the count's add was 9 % of a 16-core halo
 * exchange in perf, one line transfer between CPUs per message). */
static void notify(int pid)
{
    struct lqcd_core *c = &L.cores[pid];
    atomic_thread_fence(memory_order_seq_cst);
    if (!atomic_load(&c->sleeping))
        return;
    atomic_fetch_add(&c->ev, 1);
    sched_wake(&c->ev, pid);
}

static void spin_lock(atomic_flag *f)
{
    for (int i = 0; atomic_flag_test_and_set_explicit(f, memory_order_acquire); i++)
        if (i >= 16)
            sched_yield();
}

static void spin_unlock(atomic_flag *f)
{
    atomic_flag_clear_explicit(f, memory_order_release);
}

/* ---- live handles ---- */

static size_t hash_bits(uint64_t x)
{
    x ^= x >> 29;
    x *= 0xbf58476d1ce4e5b9u;
    x ^= x >> 32;
    return (size_t)x;
}

static size_t handle_hash(const void *p)
{
    return hash_bits((uint64_t)(uintptr_t)p);
}

/* Whether p is a channel declared in this run. */
static int handle_live(const void *p)
{
    struct handle_table *t = atomic_load_explicit(&L.handles, memory_order_acquire);
    if (!t || !p)
        return 0;
    for (size_t i = handle_hash(p) & t->mask;; i = (i + 1) & t->mask) {
        struct lqcd_chan *h = atomic_load_explicit(&t->slot[i], memory_order_acquire);
        if (h == p)
            return 1;
        if (!h)
            return 0;
    }
}

static void handle_put(struct handle_table *t, struct lqcd_chan *ch)
{
    size_t i = handle_hash(ch) & t->mask;
    while (atomic_load_explicit(&t->slot[i], memory_order_relaxed))
        i = (i + 1) & t->mask;
    atomic_store_explicit(&t->slot[i], ch, memory_order_release);
}

/* Makes ch a live handle; 0, or -1 without memory. */
static int handle_add(struct lqcd_chan *ch)
{
    pthread_mutex_lock(&L.handles_lock);
    struct handle_table *t = atomic_load_explicit(&L.handles, memory_order_relaxed);
    if (!t || 2 * (L.nhandles + 1) > t->mask + 1) {
        size_t cap = t ? 2 * (t->mask + 1) : 256;
        struct handle_table *g = calloc(1, sizeof *g + cap * sizeof g->slot[0]);
        if (!g) {
            pthread_mutex_unlock(&L.handles_lock);
            return -1;
        }
        g->mask = cap - 1;
        g->older = t;
        for (size_t i = 0; t && i <= t->mask; i++) {
            struct lqcd_chan *h = atomic_load_explicit(&t->slot[i], memory_order_relaxed);
            if (h)
                handle_put(g, h);
        }
        atomic_store_explicit(&L.handles, g, memory_order_release);
        t = g;
    }
    handle_put(t, ch);
    L.nhandles++;
    pthread_mutex_unlock(&L.handles_lock);
    return 0;
}

static void handles_free(void)
{
    struct handle_table *t = atomic_exchange(&L.handles, NULL);
    while (t) {
        struct handle_table *older = t->older;
        free(t);
        t = older;
    }
    L.nhandles = 0;
}

/* ---- a core's directory of buffer names (its dir_lock held) ---- */

static struct dir_entry *dir_find(struct lqcd_core *c, int name)
{
    if (!c->dir)
        return NULL;
    for (size_t i = hash_bits((uint32_t)name) & c->dir_mask;; i = (i + 1) & c->dir_mask) {
        struct dir_entry *e = &c->dir[i];
        if (!e->used)
            return NULL;
        if (e->name == name)
            return e;
    }
}

/* The entry of name, made if need be; NULL without memory. */
static struct dir_entry *dir_get(struct lqcd_core *c, int name)
{
    struct dir_entry *e = dir_find(c, name);
    if (e)
        return e;
    if (!c->dir || 2 * (c->dir_used + 1) > c->dir_mask + 1) {
        size_t cap = c->dir ? 2 * (c->dir_mask + 1) : 16;
        struct dir_entry *d = calloc(cap, sizeof *d);
        if (!d)
            return NULL;
        for (size_t k = 0; c->dir && k <= c->dir_mask; k++) {
            if (!c->dir[k].used)
                continue;
            size_t i = hash_bits((uint32_t)c->dir[k].name) & (cap - 1);
            while (d[i].used)
                i = (i + 1) & (cap - 1);
            d[i] = c->dir[k];
        }
        free(c->dir);
        c->dir = d;
        c->dir_mask = cap - 1;
    }
    size_t i = hash_bits((uint32_t)name) & c->dir_mask;
    while (c->dir[i].used)
        i = (i + 1) & c->dir_mask;
    e = &c->dir[i];
    *e = (struct dir_entry){.name = name, .used = 1};
    c->dir_used++;
    return e;
}

/* ---- the run ---- */

static void lqcd_run_end(void);

/* Per-run state of the LQCD API: made before the cores start (the
 * scheduler's run hooks), freed with every channel after they all left. */
static void lqcd_run_begin(int n)
{
    lqcd_run_end(); /* nothing of an earlier run survives */
    L.first = 0;
    L.count = n;
    L.ranks = 0;
    if (ebsp_world_section) { /* n is this rank's part of the section */
        L.first = ebsp_world_first;
        L.count = ebsp_world_count;
        n = ebsp_active_nprocs;
        L.ranks = (n + ebsp_world_per_rank - 1) / ebsp_world_per_rank;
    }
    void *p = NULL;
    if (posix_memalign(&p, 64, (size_t)n * sizeof(struct lqcd_core)) != 0)
        return;
    memset(p, 0, (size_t)n * sizeof(struct lqcd_core));
    struct lqcd_core *cores = p;
    for (int i = 0; i < n; i++)
        pthread_mutex_init(&cores[i].dir_lock, NULL);
    for (int k = 0; k < 2; k++) {
        p = NULL;
        if (posix_memalign(&p, 64, (size_t)n * sizeof(struct lqcd_slot)) != 0)
            break;
        memset(p, 0, (size_t)n * sizeof(struct lqcd_slot));
        L.slots[k] = p;
    }
    if (!L.slots[0] || !L.slots[1]) {
        free(L.slots[0]);
        free(L.slots[1]);
        L.slots[0] = L.slots[1] = NULL;
        free(cores);
        return;
    }
    atomic_store(&L.diverged, 0);
    atomic_store(&L.deadlocked, 0);
    L.n = n;
    L.cores = cores;
}

static void free_staged(struct lqcd_chan *st)
{
    free(st->head);
    free(st);
}

/* Staged sends that no receive took (run end). */
static void free_unclaimed(struct lqcd_core *c)
{
    for (size_t i = 0; c->dir && i <= c->dir_mask; i++) {
        struct dir_entry *e = &c->dir[i];
        if (!e->used)
            continue;
        for (struct lqcd_chan *o = e->ohead, *next; o; o = next) {
            next = o->dir_next;
            if (o->magic == STAGED_MAGIC)
                free_staged(o);
        }
        for (struct lqcd_chan *q = e->recv ? e->recv->qhead : NULL, *next; q; q = next) {
            next = q->qnext;
            if (q->magic == STAGED_MAGIC)
                free_staged(q);
        }
    }
}

static void lqcd_run_end(void)
{
    if (L.ranks)
        mpiw_progress(NULL);
    if (L.cores) {
        /* first: the queues and orphans hold sends of other cores */
        for (int i = 0; i < L.n; i++)
            free_unclaimed(&L.cores[i]);
        for (int i = 0; i < L.n; i++) {
            struct lqcd_core *c = &L.cores[i];
            for (struct lqcd_chan *ch = c->owned, *next; ch; ch = next) {
                next = ch->owned_next;
                ch->magic = 0;
                if (!mpiw_send_free(ch->wire))
                    free(ch->head); /* else MPI may still read it: it stays */
                free(ch);
            }
            for (struct bcast *b = c->bcasts, *next; b; b = next) {
                next = b->next;
                free(b->stage);
                free(b->sends);
                free(b);
            }
            free(c->tmp);
            free(c->dir);
            pthread_mutex_destroy(&c->dir_lock);
        }
        free(L.cores);
    }
    handles_free();
    free(L.slots[0]);
    free(L.slots[1]);
    free(L.wired);
    free(L.gathered);
    L.wired = NULL;
    L.nwired = L.wired_cap = 0;
    L.gathered = NULL;
    L.gathered_cap = 0;
    free(L.pid_of_rank);
    free(L.rank_of_pid);
    L.cores = NULL;
    L.slots[0] = L.slots[1] = NULL;
    L.pid_of_rank = L.rank_of_pid = NULL;
    L.topo = 0;
    L.n = 0;
}

static const struct sched_hooks lqcd_hooks = {.run_begin = lqcd_run_begin, .run_end = lqcd_run_end};

__attribute__((constructor)) static void lqcd_register(void)
{
    sched_add_hooks(&lqcd_hooks);
}

/* The calling core's state, or NULL (error set) outside a core. */
static struct lqcd_core *core_of_caller(const char *call, int need_init)
{
    struct ebsp_core *self = ebsp_self;
    if (!self || !L.cores || self->pid >= L.n) {
        seterr(LQCD_ERR_NOT_CORE, "%s: called outside a core (the LQCD calls belong in kernels)", call);
        return NULL;
    }
    struct lqcd_core *c = &L.cores[self->pid];
    if (need_init && !c->init) {
        if (atomic_load(&c->shut))
            seterr(LQCD_ERR_NOT_INIT, "%s: core %d called shutdownMachine", call, self->pid);
        else
            seterr(LQCD_ERR_NOT_INIT, "%s: core %d has not called initMachine in this run", call, self->pid);
        return NULL;
    }
    return c;
}

/* A core that left its kernel or shut the API down acts no more. */
static int gone(int pid)
{
    return sched_where(pid) == WHERE_FINISHED || atomic_load(&L.cores[pid].shut);
}

/* ---- machine ---- */

int initMachine(void)
{
    struct lqcd_core *c = core_of_caller("initMachine", 0);
    if (!c)
        return -1;
    c->init = 1;
    atomic_store(&c->shut, 0);
    if (L.ranks)
        mpiw_progress(lqcd_poll); /* this rank answers other ranks while its cores wait in barriers too */
    return 0;
}

int getMachineType(void)
{
    return 2;
}

static int incomplete(struct lqcd_chan *ch)
{
    refresh(ch);
    int s = atomic_load(&ch->state);
    return s == CH_PENDING || s == CH_ARMED || s == CH_CLAIMED;
}

int shutdownMachine(void)
{
    struct lqcd_core *c = core_of_caller("shutdownMachine", 1);
    if (!c)
        return -1;
    int open = 0;
    for (struct lqcd_chan *ch = c->owned; ch; ch = ch->owned_next)
        open += incomplete(ch);
    c->init = 0;
    atomic_store(&c->shut, 1);
    if (open)
        seterr(LQCD_ERR_BUSY, "shutdownMachine: %d operations of core %d are not complete", open,
               ebsp_self->pid);
    return open;
}

void declareTopology(int dimensions[], int ndimensions, int localHost)
{
    struct lqcd_core *c = core_of_caller("declareTopology", 1);
    if (!c)
        return;
    int pid = ebsp_self->pid;
    c->topo = 0;
    if (localHost != pid) {
        seterr(LQCD_ERR_TOPOLOGY, "declareTopology: localHost %d, but this is core %d (bsp_pid())", localHost, pid);
        return;
    }
    if (!dimensions || ndimensions < 1 || ndimensions > LQCD_MAX_DIMS) {
        seterr(LQCD_ERR_TOPOLOGY, "declareTopology: %d dimensions%s (want 1..%d)", ndimensions,
               dimensions ? "" : " in a NULL array", LQCD_MAX_DIMS);
        return;
    }
    /* the engine (Go) reads a copy: a fault inside Go could not be reported */
    size_t dims_bytes = (size_t)ndimensions * sizeof(int);
    if (user_memory_good(dimensions, dims_bytes, 0) < dims_bytes) {
        seterr(LQCD_ERR_ARG, "declareTopology: cannot read the array of %d dimensions at %p: no readable memory there",
               ndimensions, (void *)dimensions);
        return;
    }
    int dims[LQCD_MAX_DIMS];
    memcpy(dims, dimensions, dims_bytes);
    dimensions = dims;
    int ok = 0;
    pthread_mutex_lock(&L.topo_lock);
    if (!L.topo) {
        int *pid_of_rank = malloc((size_t)L.n * sizeof(int));
        int *rank_of_pid = malloc((size_t)L.n * sizeof(int));
        char err[200];
        if (!pid_of_rank || !rank_of_pid) {
            seterr(LQCD_ERR_NOMEM, "declareTopology: out of memory");
        } else if (!goLqcdPlace(dimensions, ndimensions, L.n, pid_of_rank, err, sizeof err)) {
            seterr(LQCD_ERR_TOPOLOGY, "declareTopology: %s", err);
        } else {
            for (int r = 0; r < L.n; r++)
                rank_of_pid[pid_of_rank[r]] = r;
            L.ndims = ndimensions;
            memcpy(L.dims, dimensions, (size_t)ndimensions * sizeof(int));
            L.pid_of_rank = pid_of_rank;
            L.rank_of_pid = rank_of_pid;
            L.topo = 1;
            ok = 1;
            pid_of_rank = rank_of_pid = NULL;
        }
        free(pid_of_rank);
        free(rank_of_pid);
    } else {
        int same = ndimensions == L.ndims;
        for (int d = 0; same && d < ndimensions; d++)
            same = dimensions[d] == L.dims[d];
        if (!same) {
            char mine[80] = "", theirs[80] = "";
            for (int d = 0; d < ndimensions; d++)
                snprintf(mine + strlen(mine), sizeof mine - strlen(mine), "%s%d", d ? "x" : "", dimensions[d]);
            for (int d = 0; d < L.ndims; d++)
                snprintf(theirs + strlen(theirs), sizeof theirs - strlen(theirs), "%s%d", d ? "x" : "", L.dims[d]);
            seterr(LQCD_ERR_TOPOLOGY, "declareTopology: %s, but another core declared %s", mine, theirs);
        }
        ok = same;
    }
    pthread_mutex_unlock(&L.topo_lock);
    if (!ok)
        return;
    int rank = L.rank_of_pid[pid], coords[LQCD_MAX_DIMS];
    for (int d = 0; d < L.ndims; d++) {
        coords[d] = rank % L.dims[d];
        rank /= L.dims[d];
    }
    memcpy(c->coords, coords, sizeof coords);
    for (int d = 0; d < L.ndims; d++) {
        for (int s = 0; s < 2; s++) {
            coords[d] = c->coords[d] + (s ? -1 : 1);
            c->nb[2 * d + s] = getGridHost(coords);
        }
        coords[d] = c->coords[d];
    }
    c->topo = 1;
}

/* Sets LQCD_ERR_ARG when the n bytes at p, argument `what` of call, cannot
 * be read (or, with write, written): the data would move later, where a
 * fault is a crash inside the library. Returns whether they can. */
static int check_memory(const char *call, const char *what, const void *p, size_t n, int write)
{
    size_t good = user_memory_good(p, n, write);
    if (n == 0 || good == n)
        return 1;
    char at[40] = "there";
    if (good > 0)
        snprintf(at, sizeof at, "at %p", (void *)((const char *)p + good));
    seterr(LQCD_ERR_ARG, "%s: cannot %s %zu bytes %s %s at %p: no %s memory %s", call, write ? "write" : "read", n,
           write ? "to" : "of", what, p, write ? "writable" : "readable", at);
    return 0;
}

int getGridCoordinates(int coords[])
{
    struct lqcd_core *c = core_of_caller("getGridCoordinates", 1);
    if (!c)
        return -1;
    if (!coords) {
        seterr(LQCD_ERR_ARG, "getGridCoordinates: NULL array");
        return -1;
    }
    if (!c->topo) {
        seterr(LQCD_ERR_NO_TOPOLOGY, "getGridCoordinates: no topology declared on this core");
        return -1;
    }
    if (!check_memory("getGridCoordinates", "the array", coords, (size_t)L.ndims * sizeof(int), 1))
        return -1;
    memcpy(coords, c->coords, (size_t)L.ndims * sizeof(int));
    return 0;
}

int getGridHost(const int coords[])
{
    if (!coords) {
        seterr(LQCD_ERR_ARG, "getGridHost: NULL array");
        return -1;
    }
    if (!L.cores || !L.topo) {
        seterr(LQCD_ERR_NO_TOPOLOGY, "getGridHost: no topology declared");
        return -1;
    }
    if (!check_memory("getGridHost", "the array", coords, (size_t)L.ndims * sizeof(int), 0))
        return -1;
    int rank = 0;
    for (int d = L.ndims - 1; d >= 0; d--) {
        int x = ((coords[d] % L.dims[d]) + L.dims[d]) % L.dims[d];
        rank = rank * L.dims[d] + x;
    }
    return L.pid_of_rank[rank];
}

/* ---- declarations ---- */

static struct lqcd_chan *new_chan(struct lqcd_core *c, uint32_t magic, int owner, void *buf, int nbytes, int name)
{
    struct lqcd_chan *ch = calloc(1, sizeof *ch);
    if (!ch)
        return NULL;
    if (handle_add(ch) != 0) {
        free(ch);
        return NULL;
    }
    ch->magic = magic;
    ch->owner = owner;
    ch->buf = buf;
    ch->nbytes = nbytes;
    ch->name = name;
    ch->remote = owner;
    ch->rank = -1;
    atomic_flag_clear(&ch->lock);
    ch->owned_next = c->owned;
    c->owned = ch;
    return ch;
}

/* Keeps send s for a buffer core c has not declared yet (dir_lock held),
 * after those kept before: declareReceive takes them in order of arrival,
 * which for two messages of one sender on another rank is their order.
 * 0, or -1 without memory. */
static int add_orphan(struct lqcd_core *c, struct lqcd_chan *s)
{
    struct dir_entry *e = dir_get(c, s->name);
    if (!e)
        return -1;
    s->dir_next = NULL;
    if (e->otail)
        e->otail->dir_next = s;
    else
        e->ohead = s;
    e->otail = s;
    return 0;
}

static struct lqcd_chan *find_recv(struct lqcd_core *c, int name)
{
    struct dir_entry *e = dir_find(c, name);
    return e ? e->recv : NULL;
}

/* Joins send s to receive r (r's owner's dir lock held); a send already
 * started goes into the queue. */
static void link_send(struct lqcd_chan *s, struct lqcd_chan *r)
{
    if (s->magic == SEND_MAGIC) { /* a staged one lives until it is delivered */
        s->sender_next = r->senders;
        r->senders = s;
    }
    spin_lock(&r->lock);
    if (atomic_load(&s->state) == CH_PENDING) {
        s->qnext = NULL;
        if (r->qtail)
            r->qtail->qnext = s;
        else
            r->qhead = s;
        r->qtail = s;
    }
    atomic_store(&s->target, r);
    spin_unlock(&r->lock);
}

/* write: the buffer receives (declareReceive). */
static int check_buffer(const char *call, const void *buffer, int nbytes, int write)
{
    if (nbytes < 0) {
        seterr(LQCD_ERR_ARG, "%s: negative size %d", call, nbytes);
        return 0;
    }
    if (!buffer && nbytes > 0) {
        seterr(LQCD_ERR_ARG, "%s: NULL buffer of %d bytes", call, nbytes);
        return 0;
    }
    return check_memory(call, "the buffer", buffer, (size_t)nbytes, write);
}

void *declareReceive(void *buffer, int nbytes, int bufName)
{
    struct lqcd_core *c = core_of_caller("declareReceive", 1);
    if (!c || !check_buffer("declareReceive", buffer, nbytes, 1))
        return NULL;
    int pid = ebsp_self->pid;
    pthread_mutex_lock(&c->dir_lock);
    struct lqcd_chan *r = NULL;
    struct dir_entry *e = dir_get(c, bufName);
    if (!e) {
        seterr(LQCD_ERR_NOMEM, "declareReceive: out of memory");
        goto out;
    }
    if (e->recv) {
        seterr(LQCD_ERR_NAME_TAKEN, "declareReceive: core %d already declared buffer %d", pid, bufName);
        goto out;
    }
    /* sends declared before this buffer: all must have its size */
    int bad = 0;
    struct lqcd_chan *prev = NULL;
    for (struct lqcd_chan *s = e->ohead, *next; s; s = next) {
        next = s->dir_next;
        if (s->nbytes == nbytes) {
            prev = s;
            continue;
        }
        if (!bad++)
            seterr(LQCD_ERR_SIZE, "declareReceive: buffer %d of %d bytes, but core %d declared a send of %d bytes to it",
                   bufName, nbytes, s->owner, s->nbytes);
        /* the send fails; it stays an orphan no more */
        if (prev)
            prev->dir_next = next;
        else
            e->ohead = next;
        if (e->otail == s)
            e->otail = prev;
        if (s->magic == STAGED_MAGIC) {
            answer(s, LQCD_ERR_SIZE);
        } else {
            atomic_store(&s->err, LQCD_ERR_SIZE);
            notify(s->owner);
        }
    }
    if (bad)
        goto out;
    r = new_chan(c, RECV_MAGIC, pid, buffer, nbytes, bufName);
    if (!r) {
        seterr(LQCD_ERR_NOMEM, "declareReceive: out of memory");
        goto out;
    }
    for (struct lqcd_chan *s = e->ohead, *next; s; s = next) {
        next = s->dir_next;
        link_send(s, r);
    }
    e->ohead = e->otail = NULL;
    e->recv = r;
out:
    pthread_mutex_unlock(&c->dir_lock);
    return r;
}

static struct lqcd_chan *declare_send(struct lqcd_core *c, const char *call, void *buffer, int nbytes, int host,
                                      int name, int relative)
{
    if (!local(host))
        return declare_wired(c, call, buffer, nbytes, host, name, relative);
    int pid = ebsp_self->pid;
    struct lqcd_core *rc = &L.cores[host];
    struct lqcd_chan *s = NULL;
    pthread_mutex_lock(&rc->dir_lock);
    struct lqcd_chan *r = find_recv(rc, name);
    if (r && r->nbytes != nbytes) {
        seterr(LQCD_ERR_SIZE, "%s: a send of %d bytes to buffer %d of core %d, which declared it with %d bytes",
               call, nbytes, name, host, r->nbytes);
    } else if (!r && gone(host)) {
        seterr(LQCD_ERR_NO_BUFFER, "%s: core %d never declared buffer %d and %s", call, host, name,
               atomic_load(&rc->shut) ? "has shut down" : "has left its kernel");
    } else if (!(s = new_chan(c, SEND_MAGIC, pid, buffer, nbytes, name))) {
        seterr(LQCD_ERR_NOMEM, "%s: out of memory", call);
    } else {
        s->remote = host;
        s->relative = relative;
        if (r) {
            link_send(s, r);
        } else if (add_orphan(rc, s) != 0) {
            s->magic = 0; /* freed with the run */
            s = NULL;
            seterr(LQCD_ERR_NOMEM, "%s: out of memory", call);
        }
    }
    pthread_mutex_unlock(&rc->dir_lock);
    return s;
}

void *declareSendTo(void *buffer, int nbytes, int remoteHost, int remoteBuffer)
{
    struct lqcd_core *c = core_of_caller("declareSendTo", 1);
    if (!c || !check_buffer("declareSendTo", buffer, nbytes, 0))
        return NULL;
    if (remoteHost < 0 || remoteHost >= L.n) {
        seterr(LQCD_ERR_HOST, "declareSendTo: host %d does not exist (the run has cores 0..%d)", remoteHost, L.n - 1);
        return NULL;
    }
    return declare_send(c, "declareSendTo", buffer, nbytes, remoteHost, remoteBuffer, 0);
}

void *declareSendRelative(void *buffer, int nbytes, int relativeHost, int remoteBuffer)
{
    struct lqcd_core *c = core_of_caller("declareSendRelative", 1);
    if (!c || !check_buffer("declareSendRelative", buffer, nbytes, 0))
        return NULL;
    if (!c->topo) {
        seterr(LQCD_ERR_NO_TOPOLOGY, "declareSendRelative: no topology declared on core %d (declareTopology)",
               ebsp_self->pid);
        return NULL;
    }
    /* compared before any negation: -INT_MIN does not exist */
    if (relativeHost == 0 || relativeHost < -L.ndims || relativeHost > L.ndims) {
        seterr(LQCD_ERR_DIRECTION, "declareSendRelative: direction %d (want +-1 .. +-%d)", relativeHost, L.ndims);
        return NULL;
    }
    int d = relativeHost < 0 ? -relativeHost : relativeHost;
    int host = c->nb[2 * (d - 1) + (relativeHost < 0)];
    return declare_send(c, "declareSendRelative", buffer, nbytes, host, remoteBuffer, relativeHost);
}

/* ---- operations ---- */

/* The caller's channel, or NULL (error set). The handle is looked up
 * among the channels declared in this run, never followed before: a
 * wild pointer, a freed channel of an earlier run or a stack address is
 * refused like NULL. */
static struct lqcd_chan *chan_of(void *opaque, const char *call)
{
    struct ebsp_core *self = ebsp_self;
    if (!self) {
        seterr(LQCD_ERR_NOT_CORE, "%s: called outside a core", call);
        return NULL;
    }
    if (!handle_live(opaque)) {
        seterr(LQCD_ERR_CHANNEL, "%s: %p is not a channel (declareReceive/declareSend* returned NULL?)", call,
               opaque);
        return NULL;
    }
    struct lqcd_chan *ch = opaque;
    if (ch->magic != SEND_MAGIC && ch->magic != RECV_MAGIC) { /* a declaration that failed half-way */
        seterr(LQCD_ERR_CHANNEL, "%s: %p is not a channel (declareReceive/declareSend* returned NULL?)", call,
               opaque);
        return NULL;
    }
    if (ch->owner != self->pid) {
        seterr(LQCD_ERR_CHANNEL, "%s: the channel belongs to core %d, not to core %d", call, ch->owner, self->pid);
        return NULL;
    }
    if (!core_of_caller(call, 1)) /* not initialised, or shut down: the API's error */
        return NULL;
    return ch;
}

/* Sets a channel's state. A release store, not a sequentially consistent
 * one (an xchg on x86, ~10 ns): every state change is either made under the
 * receive's lock, which orders it, or (DONE) followed by notify's fence
 * before a waiter is looked at. Five such stores per message. */
static void set_state(struct lqcd_chan *ch, int state)
{
    atomic_store_explicit(&ch->state, state, memory_order_release);
}

/* Copies send s into receive r, which the caller claimed. */
static void deliver(struct lqcd_chan *s, struct lqcd_chan *r)
{
    if (s->nbytes)
        memcpy(r->buf, s->buf, (size_t)s->nbytes);
    set_state(r, CH_DONE);
    set_state(s, CH_DONE);
}

/* Send s (local or staged) meets receive r: delivered now if r is armed,
 * else queued. */
static void offer(struct lqcd_chan *s, struct lqcd_chan *r)
{
    spin_lock(&r->lock);
    if (atomic_load(&r->state) == CH_ARMED) {
        set_state(r, CH_CLAIMED);
        spin_unlock(&r->lock);
        deliver(s, r);
        if (r->owner != s->owner || s->magic == STAGED_MAGIC)
            notify(r->owner);
        if (s->magic == STAGED_MAGIC)
            answer(s, 0);
        return;
    }
    s->qnext = NULL;
    if (r->qtail)
        r->qtail->qnext = s;
    else
        r->qhead = s;
    r->qtail = s;
    spin_unlock(&r->lock);
}

static void start_send(struct lqcd_chan *s)
{
    if (s->rank >= 0) {
        set_state(s, CH_PENDING);
        if (mpiw_send_start(s->wire) != 0)
            atomic_store(&s->err, LQCD_ERR_PARTNER);
        return; /* what other ranks sent is taken in by the tests and waits (lqcd_poll) */
    }
    struct lqcd_chan *r = atomic_load(&s->target);
    if (!r) {
        /* an orphan: the receiver has not declared the buffer (yet) */
        struct lqcd_core *rc = &L.cores[s->remote];
        pthread_mutex_lock(&rc->dir_lock);
        r = atomic_load(&s->target);
        if (!r)
            atomic_store(&s->state, CH_PENDING); /* queued when the receive is declared */
        pthread_mutex_unlock(&rc->dir_lock);
        if (!r)
            return;
    }
    set_state(s, CH_PENDING);
    offer(s, r);
}

void startSend(void *opaque)
{
    struct lqcd_chan *s = chan_of(opaque, "startSend");
    if (!s)
        return;
    if (s->magic != SEND_MAGIC) {
        seterr(LQCD_ERR_CHANNEL, "startSend: buffer %d of core %d is a receive", s->name, s->owner);
        return;
    }
    int e = atomic_load(&s->err);
    if (e) {
        send_failed(s, "startSend", e, "it");
        return;
    }
    refresh(s);
    if (atomic_load(&s->state) == CH_PENDING) {
        seterr(LQCD_ERR_BUSY, "startSend: the send to buffer %d of core %d is busy (its last start is not complete)",
               s->name, s->remote);
        return;
    }
    start_send(s);
}

void startReceive(void *opaque)
{
    struct lqcd_chan *r = chan_of(opaque, "startReceive");
    if (!r)
        return;
    if (r->magic != RECV_MAGIC) {
        seterr(LQCD_ERR_CHANNEL, "startReceive: the channel to buffer %d of core %d is a send", r->name, r->remote);
        return;
    }
    int st = atomic_load(&r->state);
    if (st == CH_ARMED || st == CH_CLAIMED) {
        seterr(LQCD_ERR_BUSY, "startReceive: buffer %d of core %d is busy (armed, nothing arrived yet)", r->name,
               r->owner);
        return;
    }
    /* no lqcd_poll here: what arrives from other ranks after this lands
       straight in the armed buffer when a test or wait takes it in */
    spin_lock(&r->lock);
    struct lqcd_chan *s = r->qhead;
    if (s) {
        r->qhead = s->qnext;
        if (!r->qhead)
            r->qtail = NULL;
        set_state(r, CH_CLAIMED);
        spin_unlock(&r->lock);
        deliver(s, r);
        if (s->magic == STAGED_MAGIC)
            answer(s, 0);
        else if (s->owner != r->owner)
            notify(s->owner);
        return;
    }
    set_state(r, CH_ARMED);
    spin_unlock(&r->lock);
}

/* 1 complete, 0 in flight, -1 error (set). idle_ok: a channel never
 * started counts as complete (internal waits). */
static int status(struct lqcd_chan *ch, const char *call, int idle_ok)
{
    refresh(ch);
    int st = atomic_load(&ch->state);
    if (st == CH_DONE)
        return 1;
    int e = atomic_load(&ch->err);
    if (e) {
        send_failed(ch, call, e, "the buffer");
        return -1;
    }
    if (st == CH_IDLE) {
        if (idle_ok)
            return 1;
        if (ch->magic == SEND_MAGIC)
            seterr(LQCD_ERR_NOT_STARTED, "%s: the send to buffer %d of core %d was never started", call, ch->name,
                   ch->remote);
        else
            seterr(LQCD_ERR_NOT_STARTED, "%s: buffer %d of core %d was never armed (startReceive)", call, ch->name,
                   ch->owner);
        return -1;
    }
    return 0;
}

int testCompletion(void *opaque)
{
    struct lqcd_chan *ch = chan_of(opaque, "testCompletion");
    if (!ch)
        return -1;
    if (atomic_load(&ch->state) == CH_DONE)
        return 1;
    lqcd_poll();
    int r = status(ch, "testCompletion", 0);
    if (r == 0) {
        /* a core that polls lets the others run: with coroutine cores, its
           partner may be waiting for this core's worker */
        sched_pause();
        r = status(ch, "testCompletion", 0);
    }
    return r;
}

/* Why ch (in flight) has not completed; fills err. Returns 1 when it never
 * can (the other side left), 0 when it may still. */
/* What ch (in flight) waits for, in what (size bytes); returns 1 when it
 * never can complete (the other side left), with *codep its error. */
static int explain_text(struct lqcd_chan *ch, char *what, size_t size, int *codep)
{
    int hopeless = 0, code = LQCD_ERR_TIMEOUT;
    if (ch->magic == SEND_MAGIC && ch->rank >= 0) {
        snprintf(what, size,
                 "the send to buffer %d of core %d (MPI rank %d) is pending: core %d has not declared or not armed it",
                 ch->name, ch->remote, ch->rank, ch->remote);
    } else if (ch->magic == SEND_MAGIC) {
        int host = ch->remote;
        hopeless = gone(host);
        const char *left = atomic_load(&L.cores[host].shut) ? "shut down" : "left its kernel";
        if (!atomic_load(&ch->target)) {
            code = hopeless ? LQCD_ERR_NO_BUFFER : code;
            if (hopeless)
                snprintf(what, size, "the send to buffer %d of core %d is pending: core %d %s without declaring it",
                         ch->name, host, host, left);
            else
                snprintf(what, size, "the send to buffer %d of core %d is pending: core %d has not declared it",
                         ch->name, host, host);
        } else {
            code = hopeless ? LQCD_ERR_PARTNER : code;
            if (hopeless)
                snprintf(what, size, "the send to buffer %d of core %d is pending: core %d %s without arming it",
                         ch->name, host, host, left);
            else
                snprintf(what, size, "the send to buffer %d of core %d is pending: core %d has not armed it (startReceive)",
                         ch->name, host, host);
        }
    } else {
        int others = 0, alive = 0;
        for (int p = 0; p < L.n; p++)
            if (p != ch->owner) {
                others++;
                alive += !gone(p);
            }
        hopeless = others == 0 || alive == 0;
        code = hopeless ? LQCD_ERR_PARTNER : code;
        /* the lowest 6 sender pids, in order: the same text whatever the
           order in which the senders declared */
        int lowest[6], k = 0;
        struct lqcd_core *c = &L.cores[ch->owner];
        pthread_mutex_lock(&c->dir_lock);
        for (struct lqcd_chan *s = ch->senders; s; s = s->sender_next, k++) {
            int at = k < 6 ? k : 6;
            while (at > 0 && lowest[at - 1] > s->owner) {
                if (at < 6)
                    lowest[at] = lowest[at - 1];
                at--;
            }
            if (at < 6)
                lowest[at] = s->owner;
        }
        pthread_mutex_unlock(&c->dir_lock);
        char senders[64] = "";
        for (int i = 0; i < k && i < 6; i++)
            snprintf(senders + strlen(senders), sizeof senders - strlen(senders), "%s%d", i ? "," : "", lowest[i]);
        if (k == 0 && L.ranks)
            snprintf(what, size,
                     "nothing arrived in buffer %d of core %d: no core of its MPI rank declared a send to it, "
                     "and nothing came from the other ranks", ch->name, ch->owner);
        else if (k == 0)
            snprintf(what, size, "nothing arrived in buffer %d of core %d: no core declared a send to it%s",
                     ch->name, ch->owner, hopeless ? " and all others left" : "");
        else
            snprintf(what, size, "nothing arrived in buffer %d of core %d: no send started by core%s %s%s%s",
                     ch->name, ch->owner, k > 1 ? "s" : "", senders, k > 6 ? ",..." : "",
                     hopeless ? " (all left)" : "");
    }
    *codep = code;
    return hopeless;
}

static int explain(struct lqcd_chan *ch, const char *call, int ms, int timed_out)
{
    char what[ERR_MAX - 40];
    int code;
    int hopeless = explain_text(ch, what, sizeof what, &code);
    if (hopeless)
        seterr(code, "%s: %s", call, what);
    else if (timed_out)
        seterr(code, "%s: %d ms passed; %s", call, ms, what);
    return hopeless;
}

/* ---- deadlocks of LQCD waits ---- */

/* Whether the place of a core that does not run is a barrier's (enum
 * ebsp_where). */
static int in_barrier(int where)
{
    return where == WHERE_SYNC || where == WHERE_BARRIER || where == WHERE_HOST_SYNC || where == WHERE_END ||
           where == WHERE_LQCD;
}

/* Whether ch, waited for by a core asleep, can still complete without a
 * core that runs: only running cores start, arm and copy. */
static int stuck(struct lqcd_chan *ch)
{
    if (!ch || atomic_load(&ch->err))
        return 0;
    int st = atomic_load(&ch->state);
    return ch->magic == SEND_MAGIC ? st == CH_PENDING : st == CH_ARMED;
}

struct core_look {
    unsigned seq;
    int where, arrivals;
};

/* Every core's state; 1 when all cores are blocked: asleep in an LQCD wait
 * (at least one) that no core can end, waiting in a barrier round that one
 * of those never reaches, or finished. The LQCD waiters run no more, as
 * nothing they wait for can happen without a core that runs; the barrier
 * round they have not reached never ends. */
static int look_all(struct core_look *v)
{
    int n = L.n, waiters = 0, least = INT_MAX;
    for (int p = 0; p < n; p++) {
        v[p].seq = atomic_load(&L.cores[p].wait_seq);
        v[p].where = sched_where(p);
        v[p].arrivals = sched_arrivals(p);
    }
    /* the cheap looks first: a halo exchange's cores sleep often, and
       most of the time some core runs */
    for (int p = 0; p < n; p++) {
        if (v[p].seq & 1) {
            if (!stuck(atomic_load(&L.cores[p].waited)))
                return 0; /* it will complete */
            waiters++;
            least = v[p].arrivals < least ? v[p].arrivals : least;
        } else if (v[p].where != WHERE_FINISHED && !in_barrier(v[p].where)) {
            return 0; /* it runs */
        }
    }
    if (!waiters)
        return 0;
    for (int p = 0; p < n; p++)
        if (!(v[p].seq & 1) && in_barrier(v[p].where) && v[p].arrivals <= least)
            return 0; /* a round every waiter passed: released, not yet running */
    for (int p = 0; p < n; p++) {
        char what[ERR_MAX];
        int code;
        if ((v[p].seq & 1) && explain_text(atomic_load(&L.cores[p].waited), what, sizeof what, &code))
            return 0; /* it fails at its next look: the other side left */
    }
    return 1;
}

/* Called by a core about to sleep in an LQCD wait (its wait_seq odd):
 * when every core is blocked for good, reports the deadlock, naming each
 * LQCD wait, stops the run and returns 1. Looks twice and compares, so
 * that a core that ran in between (its wait_seq, place or arrivals
 * changed) is seen. In one process only: across MPI ranks a message from
 * another rank may end a wait (the watchdog, EBSP_TIMEOUT, reports there). */
static int deadlock_check(void)
{
    int n = L.n;
    if (L.ranks || n <= 0 || atomic_load(&L.deadlocked))
        return 0;
    struct core_look *v = malloc(2 * (size_t)n * sizeof *v);
    if (!v)
        return 0;
    int dead = look_all(v) && look_all(v + n) && !memcmp(v, v + n, (size_t)n * sizeof *v);
    if (dead && !atomic_exchange(&L.deadlocked, 1) && !sched_stopped()) {
        size_t cap = (size_t)n * (ERR_MAX + 32) + 1, at = 0;
        char *text = malloc(cap);
        for (int p = 0; text && p < n; p++) {
            if (!(v[p].seq & 1))
                continue;
            char what[ERR_MAX];
            int code;
            explain_text(atomic_load(&L.cores[p].waited), what, sizeof what, &code);
            at += (size_t)snprintf(text + at, cap - at, "  core %02d in %s: %s\n", p,
                                   atomic_load(&L.cores[p].wait_call), what);
        }
        if (text)
            goLqcdDeadlock(text);
        free(text);
        sched_stop();
    }
    free(v);
    return dead;
}

/* Waits for all of v[0..n) (the caller's, checked). 1 / 0 timeout / -1. */
static int wait_all(struct lqcd_chan **v, int n, int ms, const char *call, int idle_ok)
{
    struct ebsp_core *self = ebsp_self; /* read once: a coroutine core may resume on another thread */
    int pid = self->pid;
    struct lqcd_core *c = &L.cores[pid];
    uint64_t begun = ebsp_now_ns(), deadline = ms > 0 ? begun + (uint64_t)ms * 1000000u : 0;
    uint64_t last_look = begun - DEADLOCK_LOOK_NS; /* the first sleep looks */
    int first = 0; /* v[0..first) are complete */
    for (int round = 0;; round++) {
        unsigned ev = atomic_load(&c->ev);
        lqcd_poll();
        for (; first < n; first++) {
            int r = status(v[first], call, idle_ok);
            if (r < 0)
                return -1;
            if (r == 0)
                break;
        }
        if (first == n)
            return 1;
        if (sched_stopped()) {
            seterr(LQCD_ERR_STOPPED, "%s: the run is being stopped", call);
            return -1;
        }
        if (ms == 0) {
            explain(v[first], call, ms, 1);
            return 0;
        }
        if (round < SPIN_YIELDS) {
            sched_pause();
            continue;
        }
        if (L.ranks && ebsp_now_ns() - begun < POLL_SPIN_NS) {
            /* the partner may be a process waiting for this CPU: a
               coroutine's worker gives it up too (else 1 ms per halo at 2 x 8) */
            sched_pause();
            sched_yield();
            continue;
        }
        if (explain(v[first], call, ms, 0))
            return -1;
        long slice = SLICE_MS;
        if (ms > 0) {
            uint64_t now = ebsp_now_ns();
            if (now >= deadline) {
                explain(v[first], call, ms, 1);
                return 0;
            }
            uint64_t left = (deadline - now + 999999u) / 1000000u; /* up to INT_MAX ms: not a 32-bit long */
            slice = left < (uint64_t)slice ? (long)left : slice;
        }
        atomic_store(&c->sleeping, 1);
        atomic_store(&c->waited, v[first]);
        atomic_store(&c->wait_call, call);
        if (ms < 0) /* a wait with a limit ends by itself: no deadlock */
            atomic_fetch_add(&c->wait_seq, 1); /* odd: asleep, for the deadlock check */
        self->sched.where = WHERE_LQCD_WAIT;
        if (status(v[first], call, idle_ok) == 0) {
            /* every core blocked for good: reported, the run stops (a look
               at every core: at the first sleep of a wait, then every
               DEADLOCK_LOOK_NS) */
            uint64_t now = ebsp_now_ns();
            if (!L.ranks && ms < 0 && now - last_look >= DEADLOCK_LOOK_NS) {
                last_look = now;
                deadlock_check();
            }
            /* a coroutine core parks, its worker free for the other cores
               (polling by yielding made a 64 KiB halo exchange 13x slower
               than threads: the pollers kept every worker busy) */
            /* across ranks this core looks for messages itself */
            if (!sched_stopped())
                sched_wait(&c->ev, ev, L.ranks ? POLL_NS : (uint64_t)slice * 1000000u);
        }
        self->sched.where = WHERE_RUNNING;
        if (ms < 0)
            atomic_fetch_add(&c->wait_seq, 1); /* even: awake */
        atomic_store(&c->sleeping, 0);
    }
}

int waitFor(void *opaque, int milliseconds)
{
    struct lqcd_chan *ch = chan_of(opaque, "waitFor");
    if (!ch)
        return -1;
    int st = atomic_load(&ch->state);
    if (st == CH_DONE)
        return 1; /* the common case: no more work */
    int r = wait_all(&ch, 1, milliseconds, "waitFor", 0);
    if (r < 0)
        sched_leave_if_stopped();
    return r;
}

int waitForMultiple(void *opaque[], int count, int milliseconds)
{
    if (count < 0 || (count > 0 && !opaque)) {
        seterr(LQCD_ERR_ARG, "waitForMultiple: %s", count < 0 ? "negative count" : "NULL array");
        return -1;
    }
    if ((size_t)count > SIZE_MAX / sizeof *opaque) { /* 32-bit: the bytes do not fit in a size_t */
        seterr(LQCD_ERR_ARG, "waitForMultiple: %d handles do not fit in the address space", count);
        return -1;
    }
    if (!check_memory("waitForMultiple", "the array of handles", opaque, (size_t)count * sizeof *opaque, 0))
        return -1;
    enum { ON_STACK = 64 };
    struct lqcd_chan *local[ON_STACK], **v = local;
    if (count > ON_STACK && !(v = malloc((size_t)count * sizeof *v))) {
        seterr(LQCD_ERR_NOMEM, "waitForMultiple: out of memory");
        return -1;
    }
    int r = 1;
    for (int i = 0; i < count && r == 1; i++)
        if (!(v[i] = chan_of(opaque[i], "waitForMultiple")))
            r = -1;
    if (r == 1)
        r = wait_all(v, count, milliseconds, "waitForMultiple", 0);
    if (v != local)
        free(v);
    if (r < 0)
        sched_leave_if_stopped();
    return r;
}

/* ---- across MPI ranks ---- */

/* Sets the error of call on send s, which failed with err; buffer names
 * the receive ("it", "the buffer"). */
static void send_failed(const struct lqcd_chan *s, const char *call, int err, const char *buffer)
{
    /* a local send fails only for its size; one to another rank also when
       the receiver refused it or MPI failed */
    const char *why = err == LQCD_ERR_NO_BUFFER ? "its core left its kernel without declaring the buffer"
                                                : "an MPI call failed";
    if (err == LQCD_ERR_SIZE)
        seterr(err, "%s: the send to buffer %d of core %d failed: core %d declared %s with another size", call,
               s->name, s->remote, s->remote, buffer);
    else
        seterr(err, "%s: the send to buffer %d of core %d failed: %s", call, s->name, s->remote, why);
}

/* A send to a core of another rank: a persistent MPI send of its head and
 * its buffer, both read in place at each start. */
static struct lqcd_chan *declare_wired(struct lqcd_core *c, const char *call, void *buffer, int nbytes, int host,
                                       int name, int relative)
{
    int pid = ebsp_self->pid;
    struct wire_head *h = calloc(1, sizeof *h);
    struct lqcd_chan *s = h ? new_chan(c, SEND_MAGIC, pid, buffer, nbytes, name) : NULL;
    if (!s) {
        free(h);
        seterr(LQCD_ERR_NOMEM, "%s: out of memory", call);
        return NULL;
    }
    s->remote = host;
    s->relative = relative;
    s->rank = rank_of(host);
    s->head = h;
    pthread_mutex_lock(&L.wired_lock);
    if (L.nwired == L.wired_cap) {
        int cap = L.wired_cap ? 2 * L.wired_cap : 64;
        struct lqcd_chan **w = realloc(L.wired, (size_t)cap * sizeof *w);
        if (w) {
            L.wired = w;
            L.wired_cap = cap;
        }
    }
    s->id = L.nwired < L.wired_cap ? L.nwired : -1;
    if (s->id >= 0)
        L.wired[L.nwired++] = s;
    pthread_mutex_unlock(&L.wired_lock);
    *h = (struct wire_head){.kind = WIRE_DATA, .src = pid, .dst = host, .name = name, .nbytes = nbytes, .id = s->id};
    if (s->id >= 0)
        s->wire = mpiw_send_init(h, (int)sizeof *h, buffer, nbytes, s->rank, WIRE_TAG);
    if (!s->wire) {
        s->magic = 0; /* freed with the run */
        seterr(LQCD_ERR_NOMEM, "%s: out of memory, or MPI_Send_init failed", call);
        return NULL;
    }
    return s;
}

/* Staged st is done with: its bytes are in the receive buffer (err 0), or
 * they never will be, which its sender is told; st is freed. */
static void answer(struct lqcd_chan *st, int err)
{
    if (err) {
        struct wire_head a = {.kind = WIRE_REFUSED, .src = st->remote, .dst = st->owner, .name = st->name,
                              .id = st->id, .err = err};
        mpiw_send_small(&a, (int)sizeof a, st->rank, WIRE_TAG);
    }
    free_staged(st);
}

/* The receiver refused send h->id. */
static void refused(const struct wire_head *h)
{
    pthread_mutex_lock(&L.wired_lock);
    struct lqcd_chan *s = h->id >= 0 && h->id < L.nwired ? L.wired[h->id] : NULL;
    pthread_mutex_unlock(&L.wired_lock);
    if (!s)
        return;
    atomic_store(&s->err, h->err);
    notify(s->owner);
}

/* A send to another rank is complete once MPI has its bytes (the owner
 * asks: one thread per channel). */
static void refresh(struct lqcd_chan *ch)
{
    if (ch->rank < 0 || ch->magic != SEND_MAGIC || atomic_load(&ch->state) != CH_PENDING)
        return;
    int r = mpiw_send_test(ch->wire);
    if (r < 0)
        atomic_store(&ch->err, LQCD_ERR_PARTNER);
    else if (r == 1 && !atomic_load(&ch->err))
        set_state(ch, CH_DONE);
}

/* The receive of core h->dst that h's send meets, claimed, when it is armed
 * for h's bytes: they may land in it at once. */
static struct lqcd_chan *claim_armed(const struct wire_head *h)
{
    struct lqcd_core *rc = &L.cores[h->dst];
    pthread_mutex_lock(&rc->dir_lock);
    struct lqcd_chan *r = find_recv(rc, h->name);
    pthread_mutex_unlock(&rc->dir_lock);
    if (!r || r->nbytes != h->nbytes)
        return NULL;
    spin_lock(&r->lock);
    int armed = atomic_load(&r->state) == CH_ARMED;
    if (armed)
        set_state(r, CH_CLAIMED);
    spin_unlock(&r->lock);
    return armed ? r : NULL;
}

/* A send from a core of rank `from` arrived (h: its message, len bytes:
 * the head, then the bytes when they are few, else they follow as a body
 * of their own): they land in their receive when it is armed (a large
 * body with MPI's copy only, as between two MPI processes), else they are
 * staged after the head and meet the receive as a local send would, or
 * wait for the receive's declaration. */
static void arrived(struct wire_head *h, int len, int from)
{
    int apart = h->nbytes >= MPIW_BODY_APART;
    if (h->nbytes < 0 || len != (int)sizeof *h + (apart ? 0 : h->nbytes)) {
        free(h); /* not one of ours: nothing follows it */
        return;
    }
    struct lqcd_chan *r = local(h->dst) ? claim_armed(h) : NULL;
    if (r) {
        if (!apart || mpiw_receive_body(from, WIRE_TAG, r->buf, h->nbytes) == 0) {
            if (!apart && h->nbytes)
                memcpy(r->buf, h + 1, (size_t)h->nbytes);
            set_state(r, CH_DONE);
            notify(r->owner);
        } else {
            set_state(r, CH_ARMED); /* the message is lost; the receive waits on */
        }
        free(h);
        return;
    }
    if (apart) {
        struct wire_head *full = realloc(h, sizeof *h + (size_t)h->nbytes);
        if (!full) { /* out of memory: the message is lost */
            free(h);
            return;
        }
        h = full;
        if (mpiw_receive_body(from, WIRE_TAG, h + 1, h->nbytes) != 0) {
            free(h);
            return;
        }
    }
    struct lqcd_chan *st = local(h->dst) ? calloc(1, sizeof *st) : NULL;
    if (!st) {
        free(h);
        return;
    }
    st->magic = STAGED_MAGIC;
    st->owner = h->src;
    st->remote = h->dst;
    st->name = h->name;
    st->nbytes = h->nbytes;
    st->buf = (char *)(h + 1);
    st->rank = from;
    st->id = h->id;
    st->head = h;
    atomic_store(&st->state, CH_PENDING);
    struct lqcd_core *rc = &L.cores[h->dst];
    pthread_mutex_lock(&rc->dir_lock);
    r = find_recv(rc, h->name);
    int kept = !r && !gone(h->dst) && add_orphan(rc, st) == 0; /* declareReceive takes it */
    pthread_mutex_unlock(&rc->dir_lock);
    if (!r && !kept)
        answer(st, LQCD_ERR_NO_BUFFER);
    else if (r && r->nbytes != st->nbytes)
        answer(st, LQCD_ERR_SIZE);
    else if (r)
        offer(st, r);
}

/* Takes in what other ranks sent this rank's cores: sends and answers.
 * One thread at a time, the others return at once: a message must be
 * queued before the next is received, else two messages of one sender to
 * one buffer, taken by two threads, could be queued in the other order
 * (conform_lqcd's 256 KiB ring over TCP, 4 x 4: 4 runs in 30). */
static void lqcd_poll(void)
{
    static pthread_mutex_t polling = PTHREAD_MUTEX_INITIALIZER;
    if (!L.ranks || pthread_mutex_trylock(&polling) != 0)
        return;
    for (;;) {
        int from = -1, len = 0;
        struct wire_head *h = mpiw_receive(WIRE_TAG, &from, &len);
        if (!h)
            break;
        if (len >= (int)sizeof *h && h->kind == WIRE_DATA) {
            arrived(h, len, from);
            continue;
        }
        if (len >= (int)sizeof *h && h->kind == WIRE_REFUSED)
            refused(h);
        free(h);
    }
    pthread_mutex_unlock(&polling);
}

/* Every core's per_core bytes, core q's at all + q * per_core: this rank's
 * cores' (mine, packed) gathered from every rank. */
static int gather_cores(const void *mine, size_t per_core, void *all)
{
    int ranks = L.ranks, per = ebsp_world_per_rank;
    int *lens = malloc(2 * (size_t)ranks * sizeof *lens);
    if (!lens)
        return -1;
    int *displs = lens + ranks;
    for (int r = 0; r < ranks; r++) {
        int lo = r * per, hi = lo + per < L.n ? lo + per : L.n;
        lens[r] = (int)((size_t)(hi - lo) * per_core);
        displs[r] = (int)((size_t)lo * per_core);
    }
    int rc = mpiw_gather(mine, lens[ebsp_world_rank], all, lens, displs);
    free(lens);
    return rc;
}

/* After a collective's barrier across ranks: the slots of every core. The
 * rank's first core gathers while the others wait. */
static int gather_slots(struct lqcd_slot *slots, int pid)
{
    if (pid == L.first) {
        size_t bytes = (size_t)L.count * sizeof *slots;
        void *mine = malloc(bytes);
        L.gather_failed = !mine;
        if (mine) {
            memcpy(mine, &slots[L.first], bytes);
            L.gather_failed = gather_cores(mine, sizeof *slots, slots) != 0;
            free(mine);
        }
    }
    if (sched_barrier_local(WHERE_LQCD) < 0)
        return -1;
    return L.gather_failed ? -1 : 0;
}

/* An array sum across ranks: every core's array of n elements of size es,
 * its slot pointing at it. */
static int gather_arrays(struct lqcd_slot *slots, int pid, int n, size_t es)
{
    size_t per = (size_t)n * es;
    if (pid == L.first) {
        char *mine = malloc(per * (size_t)L.count + 1);
        size_t need = per * (size_t)L.n;
        if (mine && need > L.gathered_cap) {
            char *g = realloc(L.gathered, need);
            if (g) {
                L.gathered = g;
                L.gathered_cap = need;
            }
        }
        L.gather_failed = !mine || need > L.gathered_cap;
        if (!L.gather_failed) {
            for (int i = 0; i < L.count; i++)
                memcpy(mine + (size_t)i * per, slots[L.first + i].v.p, per);
            L.gather_failed = gather_cores(mine, per, L.gathered) != 0;
        }
        free(mine);
        for (int q = 0; !L.gather_failed && q < L.n; q++)
            if (!local(q))
                slots[q].v.p = L.gathered + (size_t)q * per;
    }
    if (sched_barrier_local(WHERE_LQCD) < 0)
        return -1;
    return L.gather_failed ? -1 : 0;
}

/* A gather across ranks failed: the run stops. */
static void gather_failed(const char *call)
{
    struct ebsp_core *self = ebsp_self;
    if (!sched_stopped() && self->pid == L.first) {
        char text[120];
        snprintf(text, sizeof text, "LQCD ERROR: %s: an MPI call failed, or out of memory", call);
        goLqcdAbort(self->pid, text);
    }
    sched_stop();
    seterr(LQCD_ERR_STOPPED, "%s: the run is being stopped", call);
    sched_leave_if_stopped();
}

/* ---- collectives ---- */

/* Publishes this core's contribution and meets the others. Returns the
 * slots of this collective, or NULL when the run stopped. */
static struct lqcd_slot *collective(struct lqcd_core *c, int op, int len, union lqcd_val v)
{
    int pid = ebsp_self->pid;
    struct lqcd_slot *slots = L.slots[c->coll & 1];
    slots[pid].op = op;
    slots[pid].len = len;
    slots[pid].v = v;
    c->coll++;
    if (sched_barrier(WHERE_LQCD) < 0) {
        seterr(LQCD_ERR_STOPPED, "%s: the run is being stopped", op_names[op]);
        sched_leave_if_stopped();
        return NULL;
    }
    if (L.ranks && gather_slots(slots, pid) != 0) {
        gather_failed(op_names[op]);
        return NULL;
    }
    /* every core must be in the same collective, with the same length */
    for (int q = 0; q < L.n; q++) {
        if (slots[q].op == slots[0].op && slots[q].len == slots[0].len)
            continue;
        /* reported once, in the name of the first core that differs from
         * core 0, by whichever core sees it first (another one's stop may
         * release the others from the barrier before they look) */
        if (!atomic_exchange(&L.diverged, 1) && ebsp_world_rank == 0) {
            /* across ranks every rank sees it; rank 0 says it and ends the job */
            char text[200];
            if (slots[q].op != slots[0].op)
                snprintf(text, sizeof text,
                         "LQCD ERROR: %s while core 0 called %s (collective %u): every core calls the same "
                         "collectives in the same order",
                         op_names[slots[q].op], op_names[slots[0].op], c->coll);
            else
                snprintf(text, sizeof text, "LQCD ERROR: %s of %d elements while core 0 sums %d (collective %u)",
                         op_names[op], slots[q].len, slots[0].len, c->coll);
            goLqcdAbort(q, text);
        }
        if (L.ranks && ebsp_world_rank != 0) {
            struct timespec ts = {5, 0}; /* rank 0 reports and ends the job meanwhile */
            nanosleep(&ts, NULL);
        }
        sched_stop();
        seterr(LQCD_ERR_STOPPED, "%s: the cores called different collectives", op_names[op]);
        sched_leave_if_stopped();
        return NULL;
    }
    return slots;
}

static struct lqcd_core *collective_core(const char *call)
{
    struct lqcd_core *c = core_of_caller(call, 1);
    if (c && sched_stopped()) {
        seterr(LQCD_ERR_STOPPED, "%s: the run is being stopped", call);
        sched_leave_if_stopped();
        return NULL;
    }
    return c;
}

void waitForBarrier(void)
{
    struct lqcd_core *c = collective_core("waitForBarrier");
    if (c)
        collective(c, OP_BARRIER, 0, (union lqcd_val){0});
}

/* A scalar collective: every core's value, in core order, or NULL. */
static struct lqcd_slot *scalar_collective(const char *call, int op, union lqcd_val v)
{
    struct lqcd_core *c = collective_core(call);
    return c ? collective(c, op, 0, v) : NULL;
}

/* The doubles of all cores added in core order: the same bits on every core. */
static double sum_in_core_order(const struct lqcd_slot *s)
{
    double sum = 0;
    for (int q = 0; q < L.n; q++)
        sum += s[q].v.d;
    return sum;
}

int globalOr(int b)
{
    struct lqcd_slot *s = scalar_collective("globalOr", OP_OR, (union lqcd_val){.i = b != 0});
    int any = 0;
    for (int q = 0; s && q < L.n; q++)
        any |= (int)s[q].v.i;
    return any;
}

int sumInt(int i)
{
    struct lqcd_slot *s = scalar_collective("sumInt", OP_SUM_INT, (union lqcd_val){.i = i});
    uint32_t sum = 0; /* wraps like two's complement, without signed overflow */
    for (int q = 0; s && q < L.n; q++)
        sum += (uint32_t)s[q].v.i;
    return (int)sum;
}

float sumFloat(float x)
{
    struct lqcd_slot *s = scalar_collective("sumFloat", OP_SUM_FLOAT, (union lqcd_val){.d = x});
    return s ? (float)sum_in_core_order(s) : 0;
}

double sumDouble(double x)
{
    struct lqcd_slot *s = scalar_collective("sumDouble", OP_SUM_DOUBLE, (union lqcd_val){.d = x});
    return s ? sum_in_core_order(s) : 0;
}

/* Array sums: after the first barrier each core sums its share of the
 * elements over all cores (in core order) into its own tmp; after the
 * second, every core copies the result from the tmps of the owners. A tmp
 * is written again only after the next array sum's first barrier, when
 * every core has copied out of it. */
static void sum_array(const char *call, int op, void *x, int n, int is_float)
{
    struct lqcd_core *c = collective_core(call);
    if (!c)
        return;
    size_t es = is_float ? sizeof(float) : sizeof(double);
    if (n < 0 || (n > 0 && !x)) {
        seterr(LQCD_ERR_ARG, "%s: %s", call, n < 0 ? "negative length" : "NULL array");
        n = 0; /* still take part, or the others would wait forever */
    } else if ((size_t)n > SIZE_MAX / es) { /* 32-bit: the bytes do not fit in a size_t */
        seterr(LQCD_ERR_ARG, "%s: %d elements do not fit in the address space", call, n);
        n = 0;
    } else if (!check_memory(call, "the array", x, (size_t)n * (is_float ? sizeof(float) : sizeof(double)), 1)) {
        n = 0; /* as for NULL */
    }
    int pid = ebsp_self->pid, p = L.count; /* the shares of this process's cores */
    size_t share = ((size_t)n + (size_t)p - 1) / (size_t)p;
    struct lqcd_slot *s = collective(c, op, n, (union lqcd_val){.p = x});
    if (!s)
        return;
    if (L.ranks && n > 0 && gather_arrays(s, pid, n, is_float ? sizeof(float) : sizeof(double)) != 0) {
        gather_failed(call);
        return;
    }
    /* Grown only now, past the collective's first barrier: a slower core
     * may still be copying the previous array sum out of this tmp until
     * it arrives here. */
    if (share > c->tmp_cap) {
        double *t = realloc(c->tmp, share * sizeof(double));
        if (!t) {
            seterr(LQCD_ERR_NOMEM, "%s: out of memory", call);
            share = 0; /* cannot happen in practice; the sum is then wrong, and says so */
        } else {
            c->tmp = t;
            c->tmp_cap = share;
        }
    }
    size_t lo = share * (size_t)(pid - L.first), hi = lo + share;
    if (hi > (size_t)n)
        hi = (size_t)n;
    for (size_t i = lo; i < hi; i++) {
        double sum = 0;
        for (int q = 0; q < L.n; q++)
            sum += is_float ? (double)((const float *)s[q].v.p)[i] : ((const double *)s[q].v.p)[i];
        c->tmp[i - lo] = sum;
    }
    if (sched_barrier(WHERE_LQCD) < 0) {
        seterr(LQCD_ERR_STOPPED, "%s: the run is being stopped", call);
        sched_leave_if_stopped();
        return;
    }
    for (size_t i = 0; i < (size_t)n; i++) {
        double v = L.cores[L.first + i / share].tmp[i % share];
        if (is_float)
            ((float *)x)[i] = (float)v;
        else
            ((double *)x)[i] = v;
    }
}

void sumFloatArray(float x[], int n)
{
    sum_array("sumFloatArray", OP_SUM_FLOAT_ARRAY, x, n, 1);
}

void sumDoubleArray(double x[], int n)
{
    sum_array("sumDoubleArray", OP_SUM_DOUBLE_ARRAY, x, n, 0);
}

/* ---- broadcast ---- */

void sendBroadcast(void *buffer, int nbytes, int remoteBuffer)
{
    struct lqcd_core *c = core_of_caller("sendBroadcast", 1);
    if (!c || !check_buffer("sendBroadcast", buffer, nbytes, 0))
        return;
    int pid = ebsp_self->pid;
    struct bcast *b = c->bcasts;
    while (b && (b->name != remoteBuffer || b->nbytes != nbytes))
        b = b->next;
    if (!b) {
        b = calloc(1, sizeof *b);
        char *stage = malloc(nbytes ? (size_t)nbytes : 1);
        struct lqcd_chan **sends = calloc((size_t)L.n, sizeof *sends);
        if (!b || !stage || !sends) {
            free(b);
            free(stage);
            free(sends);
            seterr(LQCD_ERR_NOMEM, "sendBroadcast: out of memory");
            return;
        }
        b->name = remoteBuffer;
        b->nbytes = nbytes;
        b->stage = stage;
        b->sends = sends;
        b->next = c->bcasts;
        c->bcasts = b;
        for (int q = 0; q < L.n; q++)
            if (q != pid)
                b->sends[q] = declare_send(c, "sendBroadcast", stage, nbytes, q, remoteBuffer, 0);
    }
    /* the previous broadcast must have left the stage */
    int failed = 0;
    for (int q = 0; q < L.n; q++) {
        struct lqcd_chan *s = b->sends[q];
        if (!s)
            continue;
        int r = wait_all(&s, 1, -1, "sendBroadcast", 1);
        if (r < 0 && sched_stopped()) {
            sched_leave_if_stopped();
            return;
        }
        failed += r < 0;
    }
    if (nbytes)
        memcpy(b->stage, buffer, (size_t)nbytes);
    for (int q = 0; q < L.n; q++) {
        struct lqcd_chan *s = b->sends[q];
        if (s && !atomic_load(&s->err) && atomic_load(&s->state) != CH_PENDING)
            start_send(s);
    }
    (void)failed; /* the error of the last failure is set */
}
