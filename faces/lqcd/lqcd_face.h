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
 * Waits follow the scheduler's policy for a waiter that looks for itself
 * (sched_poll_pause: a few looks, letting other cores run between them),
 * then wait for the core's event word to change (sched_wait) in slices,
 * checking the deadline, a stopped run and a partner that left its kernel.
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
 * the API or waits (lq_poll; also while it waits in a barrier round or a
 * collective): into the receive buffer when it is armed, else as a staged
 * send (STAGED_MAGIC) that the receive's queue holds like a local one.
 * The send completes when MPI has its bytes (its buffer may be reused:
 * the API's own definition), which may be before the receive is armed; a
 * receiver that cannot take them (sizes differ, the core left without
 * declaring the buffer) says so in a message back, and the send fails. Collectives add a gather of the
 * slots (and arrays) of every rank after the barrier, so the sums run
 * over the same values in the same core order: the same bits in every
 * layout.
 *
 * Files, each calling only those listed before it: lines.c (zeroed memory
 * on cache lines of its own), checks.c (errors, live handles, argument
 * checks), outbox.c (small sends to other ranks, packed per rank), run.c
 * (the per-run state), channels.c (the mechanics of channels within the
 * process), deadlock.c (why a wait has not ended; deadlocks), ranks.c
 * (across ranks, on the world's messages: capi/faces.h), channel_calls.c
 * (declare, start, test), waits.c, machine.c
 * (the machine and the grid), collectives.c (and the broadcast).
 */
#ifndef EBSP_FACES_LQCD_H
#define EBSP_FACES_LQCD_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "../../capi/faces.h"
#include "lqcd_declared.h"

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
extern void goLqcdDeadlock(char *details, int32_t *places, int n);
extern void goLqcdPlaces(int first, int count, int32_t *out);

enum { SEND_MAGIC = 0x4c515344, RECV_MAGIC = 0x4c515244, STAGED_MAGIC = 0x4c515354 };
enum { ERR_MAX = 256 };
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
    struct lqcd_chan *spare_next;     /* freed (lq_free_chan): the next spare of its core */
    /* across MPI ranks */
    int rank;                         /* send: the receiver's rank, staged: the sender's; -1 within this rank */
    int id;                           /* send: its index in lq.wired; staged: the sender's */
    struct wire_head *head;           /* send: sent before the bytes; staged: the message (malloc'd, or in batch) */
    struct wire_head *batch;          /* staged in place: the packed message that holds it (ranks.c) */
    struct world_send *wire;          /* send: the persistent send to the other process */
};

/* What goes between ranks: a send's bytes after a DATA head; a REFUSED
 * head back when they cannot be taken (err: why). */
enum { WIRE_DATA = 1, WIRE_REFUSED,
       WIRE_BATCH, /* sends packed per rank (outbox.c) */
       /* the search for a deadlock across ranks (deadlock_ranks.c) */
       WIRE_NUDGE, WIRE_PROBE, WIRE_REPORT, WIRE_CONFIRM, WIRE_CONFIRMED };
struct lq_outbox;
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
    struct lqcd_chan *owned;  /* every channel it declared in this run, spares too */
    struct lqcd_chan *spare;  /* freed channels, for its next declarations */
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

/* A look at the cores of this process (deadlock.c). */
struct core_look {
    unsigned seq;
    int where, arrivals;
};

/* The search for a deadlock across ranks (deadlock_ranks.c): what lq_poll
 * keeps between messages (one thread at a time), and the nudges of the
 * waiters. Zero at the start of a run. */
struct deadlock_search {
    /* every rank: its look at the wave it last reported */
    int seen_wave, seen_blocked;
    struct core_look *seen;
    unsigned seen_sent, seen_taken;
    /* every rank: when it last nudged rank 0, and at what state (under
     * deadlock_ranks.c's nudge lock) */
    uint64_t nudged_at, nudged_hash, nudge_gap;
    /* rank 0: the wave under way (phase 0: none) */
    int wave, phase, got, ok, again;
    unsigned sent, taken;
    int waiters, least_wait, least_barrier;
    int32_t *places; /* 2 per core */
    char *details;
    size_t details_len;
};

struct lqcd_state {
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
    /* across ranks: the messages of channels (DATA, REFUSED) this rank
     * sent and took in, and the search for a deadlock (deadlock_ranks.c) */
    _Atomic unsigned wire_sent; /* counts that wrap: only their sums' equality matters */
    unsigned wire_taken;        /* by lq_poll, one thread at a time */
    struct lq_outbox *_Atomic *outboxes; /* per rank: small sends packed (outbox.c) */
    _Atomic int outbox_records;          /* in all of them */
    _Atomic unsigned polls;              /* lq_poll's looks at MPI */
    _Atomic int waiting;                 /* this process's cores in lq_wait_all (across ranks) */
    struct deadlock_search search;
};
/* The face's state: one run at a time (run.c). */
extern struct lqcd_state lq;

static inline int lq_local(int pid)
{
    return (unsigned)(pid - lq.first) < (unsigned)lq.count;
}

static inline int lq_rank_of(int pid)
{
    return lq.ranks ? pid / ebsp_world_per_rank : 0;
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
static inline void lq_notify(int pid)
{
    struct lqcd_core *c = &lq.cores[pid];
    atomic_thread_fence(memory_order_seq_cst);
    if (!atomic_load(&c->sleeping))
        return;
    atomic_fetch_add(&c->ev, 1);
    sched_wake(&c->ev, pid);
}

/* A send's record in a packed message (outbox.c): its head, then its
 * bytes padded to 8. */
static inline size_t lq_record_bytes(int nbytes)
{
    return sizeof(struct wire_head) + (((size_t)nbytes + 7) & ~(size_t)7);
}

static inline size_t lq_hash_bits(uint64_t x)
{
    x ^= x >> 29;
    x *= 0xbf58476d1ce4e5b9u;
    x ^= x >> 32;
    return (size_t)x;
}

/* Sets a channel's state. A release store, not a sequentially consistent
 * one (an xchg on x86, ~10 ns): every state change is either made under the
 * receive's lock, which orders it, or (DONE) followed by notify's fence
 * before a waiter is looked at. Five such stores per message. */
static inline void lq_set_state(struct lqcd_chan *ch, int state)
{
    atomic_store_explicit(&ch->state, state, memory_order_release);
}

static inline void lq_spin_lock(atomic_flag *f)
{
    for (int i = 0; atomic_flag_test_and_set_explicit(f, memory_order_acquire); i++)
        if (i >= 16)
            sched_yield();
}

static inline void lq_spin_unlock(atomic_flag *f)
{
    atomic_flag_clear_explicit(f, memory_order_release);
}

/* The files call down this list, never up (gotests: no circle of files).
 * checks.c: errors, the live handles, argument checks */
__attribute__((format(printf, 2, 3))) void lq_seterr(int no, const char *format, ...);
int lq_handle_add(struct lqcd_chan *ch);
void lq_handles_free(void);
struct lqcd_core *lq_core_of_caller(const char *call, int need_init);
int lq_check_memory(const char *call, const char *what, const void *p, size_t n, int write);
int lq_check_buffer(const char *call, const void *buffer, int nbytes, int write);
struct lqcd_chan *lq_chan_of(void *opaque, const char *call);

/* run.c: the per-run state */
void *lq_stage_alloc(size_t bytes);
void lq_free_staged(struct lqcd_chan *st);
/* Holds on a packed message's buffer, taken and let go (run.c). */
void lq_batch_hold(struct wire_head *batch);
void lq_batch_drop(struct wire_head *batch);
int lq_gone(int pid);

/* channels.c: the mechanics of channels within this process */
struct lqcd_chan *lq_new_chan(struct lqcd_core *c, uint32_t magic, int owner, void *buf, int nbytes, int name);
int lq_add_orphan(struct lqcd_core *c, struct lqcd_chan *s);
struct lqcd_chan *lq_find_recv(struct lqcd_core *c, int name);
struct dir_entry *lq_dir_get(struct lqcd_core *c, int name);
void lq_link_send(struct lqcd_chan *s, struct lqcd_chan *r);
void lq_deliver(struct lqcd_chan *s, struct lqcd_chan *r);
int lq_offer(struct lqcd_chan *s, struct lqcd_chan *r);
int lq_free_chan(struct lqcd_chan *ch);

/* deadlock.c: why a wait has not ended, and whether none can */
int lq_explain_text(struct lqcd_chan *ch, char *what, size_t size, int *codep);
int lq_hopeless(struct lqcd_chan *ch, int *codep);
struct look_verdict {
    int blocked;       /* no core runs; every LQCD waiter is stuck, none for good */
    int waiters;       /* cores asleep in an LQCD wait without limit */
    int least_wait;    /* the fewest barrier rounds of a waiter (INT_MAX: none) */
    int least_barrier; /* the fewest of a core in a barrier (INT_MAX: none) */
};
int lq_look_twice(struct core_look *v, int first, int count, struct look_verdict *out);
size_t lq_wait_lines(const struct core_look *v, int first, int count, char *text, size_t cap);
int lq_deadlock_check(void);

/* deadlock_ranks.c: the search for a deadlock across ranks */
void lq_deadlock_nudge(void);
int lq_deadlock_message(const struct wire_head *h, int len, int from);

/* ranks.c: channels and collectives across ranks */
void lq_send_failed(const struct lqcd_chan *s, const char *call, int err, const char *buffer);
struct lqcd_chan *lq_declare_wired(struct lqcd_core *c, const char *call, void *buffer, int nbytes, int host, int name,
                                   int relative);
void lq_answer(struct lqcd_chan *st, int err);

/* outbox.c: small sends to other ranks, packed per rank */
int lq_outbox_takes(const struct lqcd_chan *s);
int lq_outbox_add(struct lqcd_chan *s);
void lq_outbox_flush(void);
int lq_outboxes_make(void);
void lq_outboxes_free(void);
void lq_refresh(struct lqcd_chan *ch);
void lq_poll(void);
int lq_gather_slots(struct lqcd_slot *slots, int pid);
int lq_gather_arrays(struct lqcd_slot *slots, int pid, int n, size_t es);
void lq_gather_failed(const char *call);

/* channel_calls.c: declarations, starts, completion */
struct lqcd_chan *lq_declare_send(struct lqcd_core *c, const char *call, void *buffer, int nbytes, int host, int name,
                                  int relative);
void lq_start_send(struct lqcd_chan *s);
int lq_status(struct lqcd_chan *ch, const char *call, int idle_ok);

/* waits.c: waitFor, waitForMultiple */
int lq_wait_all(struct lqcd_chan **v, int n, int ms, const char *call, int idle_ok);

/* machine.c (the machine and the grid) and collectives.c: the calls only */

#endif
