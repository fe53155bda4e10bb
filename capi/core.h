/*
 * The faces' part of capi (capi/faces.h includes it): the emulated core as
 * the faces and the C path of their requests see it (struct ebsp_core,
 * whose part that is capi's alone, struct core_own, only shim.h shows),
 * its section, the registration wait and cache, the checks of memory a
 * program hands over, output, the world's messages between processes, and
 * the Go entry points a face's C calls. capi's own interface is shim.h.
 * The scheduler's interface is scheduler.h.
 */
#ifndef EBSP_CORE_H
#define EBSP_CORE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "../emesh/lowmem/lowmem.h"
#include "../sched/scheduler.h"
#include "smallcopy.h"
#include "engine_defs.h" /* the engine's formats and numbers, generated from Go */

struct core_own;

/* Bytes in malloc'ed memory that grows by doubling: the request logs. */
struct ebsp_bytes {
    unsigned char *buf;
    size_t used, cap;
};

/* A log of a core's direct puts or gets (direct.c): requests whose remote
 * address the shim resolved at the call, carried out by this core itself
 * in the sync. stamp is superstep+1 of the superstep the engine allowed
 * them in (0: not asked); counted is that
 * superstep+1 instead when the engine allowed them but statistics count
 * each one (the inline fast paths, which do not count, then miss); budget
 * is the bytes left under the engine's communication limit. malloc'ed,
 * owned by the core. */
struct ebsp_dlog {
    struct ebsp_bytes log;
    int64_t budget;
    int32_t stamp, counted;
    /* A wire log's run (direct.h, wire_extend): where its last record
     * starts, the log's length just after it (0: no run), and the slot and
     * offset a put must have to go on with it. */
    size_t run_at, run_end;
    uint32_t run_slot, run_next;
    int32_t refs_pending; /* large hpputs to this core not in the log (wire_hpput) */
    /* the superstep's stamp once the log takes no more requests in it
       (direct_get); beside refs_pending, so that a log stays 72 bytes on
       LP64 and indexing the logs by pid two instructions */
    int32_t closed;
};

/* A core's message queue as the engine keeps it (struct ebsp_msgq and
 * struct ebsp_msg, engine_defs.h): messages in memory outside the Go heap,
 * read here by bsp_qsize, bsp_get_tag, bsp_move and bsp_hpmove without a
 * call into Go. Only the core itself touches it: its calls, and the
 * engine during its syncs. whole_tag: bsp_get_tag copies the whole tag
 * (the BSPlib face), else at most the tag size in force. */

/* A bsp_send the shim may record without asking the engine: no negative
 * size, no NULL buffer with bytes to copy (the engine names those). */
static inline int send_is_plain(int tag_len, const void *tag, const void *payload, int nbytes)
{
    return nbytes >= 0 && (tag || tag_len == 0) && (payload || nbytes == 0);
}

/* A cached answer to "where is core `target`'s copy of the registered
 * variable `variable`", valid in superstep `stamp - 1` (registrations
 * change only at a bsp_sync). A core's cache has at least HP_LINES lines,
 * and as many as the run has cores (a power of two), so that an all-to-all
 * of one variable never evicts itself. */
enum { HP_LINES = 128 };
struct hp_line {
    const void *variable;
    char *remote;
    int32_t target;
    int32_t size;
    int32_t stamp;
    /* The bytes [lo, hi) of the copy found readable (good[0]) and
     * writable (good[1]) in this superstep (hp_remote checks them with
     * user_memory_good): only those are copied without a look. */
    int32_t good[2][2];
};

/* What the cores of one section share in C. A BSPlib section nested in a
 * running one (MulticoreBSP's hierarchical bsp_begin, faces/bsplib/nested.c)
 * has its own; every other run is the outer section's. The engine of the
 * section writes the flags (engine/superstep.go): sync_flags[s % 2] is
 * s + 1 when some core communicated in superstep s; put_flags[s % 2]
 * (get_flags) is s + 1 when some core made direct puts (gets) in
 * superstep s (direct.h), which do not raise the sync flags; gets_flags
 * and sends_flags are the engine's flags of gets and of direct sends
 * (engine.Machine.SyncFlags), in C memory so that an MPI world's rounds
 * (world/mpi/mpi.c) merge them. */
struct ebsp_section {
    int nprocs;              /* the cores of its bsp_begin (0: none), so bsp_nprocs stays in C */
    int32_t sync_flags[2], put_flags[2], get_flags[2];
    int32_t gets_flags[2], sends_flags[2];
    int id;                  /* 0 for the outer section; a nested one's key in Go (capi/nested.go) */
    struct ebsp_core *cores; /* its core table */
    void *face;              /* the face's own state of a nested section */
};
extern struct ebsp_section ebsp_outer_section;

/* One emulated core, as the faces and the C path of requests see it; its
 * part that is capi's alone is behind own. C-allocated (cores_alloc): Go
 * never owns it. */
struct ebsp_core {
    struct sched_core sched; /* first: what the scheduler keeps of it (core_of) */
    int pid;
    int in_section;          /* BSPlib: between the core's bsp_begin and bsp_end (faces/bsplib) */
    uint64_t begin_ns;       /* bsp_begin on this core, CLOCK_MONOTONIC */
    uint64_t last_raw_ns;    /* previous ebsp_raw_time */
    int32_t superstep;       /* completed bsp_syncs; the engine's counter (engine.Core) */
    const void *kernel_base; /* load address of the core's kernel instance, for fault reports */
    unsigned char *local_base; /* the core's local memory (EBSP face), NULL for BSPlib cores: */
    size_t local_size;         /* where its fixed local addresses lead (lowmem_emulate) */
    int32_t sync_pending;    /* 1: the next bsp_sync needs the engine (engine.Mirror.Pending) */
    int32_t tagsize;         /* tag size of this superstep; the engine's value (engine.Core) */
    void *dma_slot;          /* the core's DMA engine state (emesh.DMASlot), settled at barriers (faces/ebsp/mem.c) */
    struct ebsp_msgq queue;   /* messages sent to this core (engine.Mirror.Queue) */
    struct ebsp_bytes reqlog; /* bsp_put, bsp_get and bsp_send recorded in C since
                                 the last drain into the engine (reqlog.c) */
    struct ebsp_dlog puts, gets; /* direct puts and gets (direct.c) */
    struct ebsp_dlog sends;      /* direct sends: the engine's leave and the budget (direct.c) */
    struct ebsp_dlog *send_to[2]; /* [superstep % 2][pid]: messages sent to pid in that
                                     superstep (stamp), read by pid in the next one */
    struct ebsp_dlog wire;     /* puts to cores of other processes: the engine's leave and the budget */
    struct ebsp_dlog *wire_to; /* [pid]: their records for pid in this superstep (stamp), direct.c */
    const void *wire_var;      /* the last variable they named, its slot, and when */
    int32_t wire_slot, wire_var_stamp;
    int64_t *wire_bound;       /* [pid]: its registered bytes of that variable, -1 not asked yet */
    uintptr_t good_lo, good_hi; /* pages found writable in this superstep (good_stamp), reqlog_get */
    int32_t good_stamp;
    struct hp_line *hp_cache;  /* remote copies of registered variables (hpcache.c), */
    uint32_t hp_mask;          /* hp_mask + 1 lines, made at the first miss */
    struct ebsp_section *section; /* the section it is a core of (cores_alloc: the outer one) */
    struct core_own *own;      /* capi's own state of the core (shim.h), beside it in C memory */
};

_Static_assert(offsetof(struct ebsp_core, sched) == 0, "core_of and ebsp_self cast between the two");

/* The core whose scheduler part s is (NULL for NULL). */
static inline struct ebsp_core *core_of(struct sched_core *s)
{
    return (struct ebsp_core *)s;
}

/* The calling thread's core, or NULL on the host and foreign threads: the
 * scheduler's sched_self, as the library's core. */
#define ebsp_self core_of(sched_self)

/* A thread that is no core but acts for a nested section (its monitor),
 * else NULL (faces/bsplib/nested.c). */
extern __thread struct ebsp_section *ebsp_thread_section;

/* The section of the calling thread's core (or of the thread, above): the
 * outer one on the host and foreign threads. */
static inline struct ebsp_section *section_here(void)
{
    struct ebsp_core *self = ebsp_self;
    if (self)
        return self->section;
    struct ebsp_section *thread = ebsp_thread_section;
    return thread ? thread : &ebsp_outer_section;
}

/* nprocs of the calling core's section (bsp_nprocs) and its engine's
 * flags (struct ebsp_section), under the names the C paths read. */
#define ebsp_active_nprocs (section_here()->nprocs)
#define ebsp_sync_flags (section_here()->sync_flags)
#define ebsp_put_flags (section_here()->put_flags)
#define ebsp_get_flags (section_here()->get_flags)
#define ebsp_gets_flags (section_here()->gets_flags)
#define ebsp_sends_flags (section_here()->sends_flags)

/* Returns the memory of a table of cores_alloc (shim.h). */
void cores_free(struct ebsp_core *cores);
/* sched_run and sched_start (scheduler.h) of the n cores from cores on. */
static inline int cores_run(struct ebsp_core *cores, int n)
{
    return sched_run(&cores->sched, sizeof *cores, n, cores->pid);
}
static inline void cores_start(struct ebsp_core *cores, int n, int first)
{
    sched_start(&cores->sched, sizeof *cores, n, cores->pid, first);
}

/* The library's own kinds of wait (enum ebsp_where, scheduler.h): the LQCD
 * face's (faces/lqcd). */
enum {
    WHERE_LQCD = WHERE_FIRST_FREE, /* waiting in an LQCD collective */
    WHERE_LQCD_WAIT                /* blocked in LQCD waitFor / waitForMultiple (not a barrier) */
};

/* The host's callbacks, set by ebsp_set_sync_callback and
 * ebsp_set_end_callback (faces/ebsp/host.c); NULL for none. */
extern void (*ebsp_sync_cb)(void);
extern void (*ebsp_end_cb)(void);

/* The Epiphany core clock that ebsp_raw_time counts: emesh.ClockHz, the
 * clock of the cost model, in MHz (capi/twins.go checks they agree). */
enum { EPIPHANY_CLOCK_MHZ = 600 };

/* The next message of the core's queue, or NULL (both faces read it). */
static inline struct ebsp_msg *next_message(struct ebsp_core *self)
{
    struct ebsp_msgq *q = &self->queue;
    return q->head < q->n ? &q->msgs[q->head] : NULL;
}

/* Whether the core can write the n bytes at p, a buffer of the program's
 * that the shim writes at the call (bsp_move, bsp_get_tag, a logged get's
 * destination): the pages found writable in this superstep are remembered
 * (good_lo, good_hi), so that a loop of calls looks at each page once; if
 * not, it is reported as argument `what` of call (the run stops). */
static inline int user_writable(struct ebsp_core *self, const char *call, const char *what, void *p, size_t n);

/* bsp_move of m, the next message (both faces): takes it off the queue
 * and copies at most buffer_size bytes of its payload. A read of a
 * message the core holds needs no stop check: the queue is the core's
 * own, and a loop of reads ends when it is empty, where the calls check.
 * 0 when the payload buffer cannot be written (reported: the run stops). */
static inline int move_message(struct ebsp_core *self, const struct ebsp_msg *m, void *payload, int buffer_size)
{
    self->queue.head++;
    self->queue.bytes -= m->size;
    intptr_t n = m->size < buffer_size ? m->size : buffer_size;
    if (n > 0 && payload) {
        if (!user_writable(self, "bsp_move", "the payload buffer", payload, (size_t)n))
            return 0;
        copy_small(payload, m->payload, (size_t)n);
    }
    return 1;
}

/* ---- waiting for another core's registration ---- */

/* The engine's answer to a request (comm.h): ENGINE_NOT_YET when it needs
 * a registration that another core may still push in this superstep
 * (engine.NotYet, the board's at-once model). The shim then waits with the
 * registration wait below, with no Go frame on the core's stack (a
 * coroutine core must not switch with one), and asks again;
 * reg_wait_again runs the loop. */
enum { ENGINE_DONE = 0, ENGINE_NOT_YET = 1 };

/* Waiting for another core's registration (reg_wait.c, on the scheduler's
 * sched_wait; faces/ebsp/comm_api.c, reqlog.c). The calling core waits from now on:
 * cores that wait for its registrations look again (the engine stops
 * counting on them). */
void reg_wait_begin(void);
void reg_wait_end(void);
/* The count of the events below, read before asking the engine. */
unsigned reg_events(void);
/* Waits until some core pushed a registration or began to wait since
 * reg_events() gave seen, or about a millisecond passed (a core that
 * arrives at a barrier or leaves its kernel, which settles the answer too,
 * wakes no one: that is a program's error path, and the barrier's is
 * measured in nanoseconds), or the run stops. */
void reg_wait_sleep(unsigned seen);
/* The calling core pushed a registration: wakes the waiting cores. */
void reg_pushed(void);

/* A request's wait, in the shape
 *     struct reg_wait w = {0};
 *     while (reg_wait_again(&w, goHPPut(...)))
 *         ;
 * 1 when the engine is to be asked again. The core counts as waiting
 * before its second question, so no push after the first one goes unseen. */
struct reg_wait {
    int waiting;
    unsigned seen;
};
static inline int reg_wait_again(struct reg_wait *w, int answer)
{
    if (answer != ENGINE_NOT_YET || sched_stopped()) {
        if (w->waiting)
            reg_wait_end();
        return 0;
    }
    if (!w->waiting) {
        w->waiting = 1;
        reg_wait_begin();
    } else {
        reg_wait_sleep(w->seen);
    }
    w->seen = reg_events();
    return 1;
}

/* ---- unbuffered DRMA (hpcache.c) ---- */

/* core target's copy of the registered variable, when the bytes
 * [offset, offset+nbytes) lie inside what target registered and can be
 * read (write: written); NULL when the engine must handle (and report) the
 * request. */
char *hp_remote(struct ebsp_core *self, int target, const void *variable, int offset, int nbytes, int write);
void hp_forget(struct ebsp_core *self);
/* Run end: returns the caches' memory. */
void hp_free_all(struct ebsp_core *cores, int n);

/* Consecutive targets of one variable take consecutive lines. */
static inline unsigned hp_line_of(const struct ebsp_core *self, const void *variable, int target)
{
    uint32_t h = (uint32_t)((uintptr_t)variable >> 3) * 0x9E3779B1u;
    return ((h >> 20) + (unsigned)target) & self->hp_mask;
}

/* The stamp of the current superstep in the registration cache and the
 * direct logs: superstep + 1, so that a zeroed line or log matches none. */
static inline int32_t superstep_stamp(struct ebsp_core *self)
{
    return atomic_load_explicit((_Atomic int32_t *)&self->superstep, memory_order_relaxed) + 1;
}

/* user_writable when the pages are not known writable (reqlog.c): 1 when
 * they are (now remembered), else 0 after the report. */
int user_writable_look(struct ebsp_core *self, const char *call, const char *what, void *p, size_t n);

/* Whether the n bytes at p lie in the pages found writable in the
 * superstep of stamp; no look at memory. */
static inline int user_known_writable(const struct ebsp_core *self, const void *p, size_t n, int32_t stamp)
{
    uintptr_t lo = (uintptr_t)p, hi = lo + n;
    return hi >= lo && self->good_stamp == stamp && lo >= self->good_lo && hi <= self->good_hi;
}

static inline int user_writable(struct ebsp_core *self, const char *call, const char *what, void *p, size_t n)
{
    if (user_known_writable(self, p, n, superstep_stamp(self)))
        return 1;
    return user_writable_look(self, call, what, p, n);
}

/* hp_remote's answer when the cache has it for superstep stamp - 1, else
 * NULL; never calls into the engine (the inline fast path of bsp_put). */
static inline char *hp_cached(struct ebsp_core *self, int target, const void *variable, int offset, int nbytes, int32_t stamp,
                              int write)
{
    if (!self->hp_cache)
        return NULL;
    const struct hp_line *line = &self->hp_cache[hp_line_of(self, variable, target)];
    if (line->stamp != stamp || line->variable != variable || line->target != target)
        return NULL;
    /* inside the bytes checked, which lie inside the registered size */
    const int32_t *good = line->good[write != 0];
    if (nbytes <= 0 || offset < good[0] || (int64_t)offset + nbytes > good[1])
        return NULL;
    return line->remote;
}

/* ---- faults and the watchdog (faults.c) ---- */

/* The crash reporter and the watchdog's interrupt act through the
 * scheduler's hooks (faults.c registers them): a fault on a core's thread
 * prints the core, its superstep and the address before the process dies,
 * each such thread has an alternate signal stack so that stack overflows
 * are reported, and a core computing in its own kernel code when the run
 * stops is made to leave it. */
/* How many of the n bytes at p, memory a program handed over, the library
 * can read (write: and write), n when all of them: it touches one byte in
 * every page, and a fault there is caught (the handler jumps back). Checked
 * before the Go engine copies such memory, as a fault inside Go code ends
 * the process with a Go runtime dump instead of a report. */
size_t user_memory_good(const void *p, size_t n, int write);
/* Whether s, a string a program handed over, can be read up to its NUL,
 * which comes before max bytes (checked the same way). */
int user_string_good(const char *s, size_t max);
/* Whether p lies in executable memory (/proc/self/maps): a function
 * pointer a program hands over (ebsp_register_kernel); 1 when the maps
 * cannot be read. */
int user_code_good(const void *p);
/* Whether p, with n bytes to copy, is such a small number (NULL too). It
 * must not reach Go as a pointer: the Go runtime aborts when it finds one
 * below 4096 in a pointer variable while it moves a goroutine's stack, so
 * the shim reports it with goBadUserMemory instead of passing it on. */
static inline int user_pointer_small(const void *p, size_t n)
{
    return n > 0 && (uintptr_t)p < LOWEST_ADDRESS;
}
/* A fixed local address among the pointers a kernel hands to a call
 * (LOWEST_ADDRESS up to its local memory's size: on the board its own
 * local memory, as for its loads and stores, lowmem.h) as the host address
 * of those bytes; any other pointer, and any of a core without local
 * memory (BSPlib), unchanged. */
static inline void *core_pointer(const struct ebsp_core *self, const void *p)
{
    uintptr_t a = (uintptr_t)p;
    if (__builtin_expect(self != NULL && a < self->local_size, 0) && a >= LOWEST_ADDRESS)
        return self->local_base + a;
    return (void *)a;
}
/* p as Go may see it: NULL when it is such a small number. For arguments
 * the engine does not read then (no bytes to copy), or whose value the
 * shim passes separately, as a number. */
static inline void *user_pointer_for_go(const void *p)
{
    return user_pointer_small(p, 1) ? NULL : (void *)(uintptr_t)p;
}
/* The page whose offsets stand for such numbers named as variables
 * (faces/ebsp/comm_api.c), made by the first call (faults.c); NULL before, or
 * without memory (they then reach Go as NULL). */
void *ebsp_small_variables(void);
extern void *ebsp_small_page;

/* The value of such a small number other than NULL, which Go gets as
 * NULL (user_pointer_for_go), passed beside it for a report; 0 for the
 * others. */
static inline uintptr_t user_pointer_small_value(const void *p)
{
    return p && user_pointer_small(p, 1) ? (uintptr_t)p : 0;
}
/* Runs fn, a function of the host program the library calls on the host
 * thread (a callback); a crash inside is reported as "ebsp: WHAT crashed:
 * SIGSEGV ..." (what: e.g. "the host's end callback"). */
void faults_host_call(void (*fn)(void), const char *what);
/* Load address of the shared object that contains addr, or NULL. */
const void *object_base(const void *addr);

/* ---- kernels (loader.c) ---- */

/* Where instances are copied (/dev/shm, else $TMPDIR or /tmp), and the
 * copy of a file's bytes to to_fd (0, or -1 with errno). */
const char *loader_scratch_dir(void);
int loader_copy_file(const char *from, int to_fd);

/* ---- output (output.c) ---- */

/* Prints "$PP: text" through C stdio; pid < 0 prints as the host. */
void out_core_line(int pid, const char *text);
void out_stderr(const char *text);
void out_flush(void);

/* ---- Go engine entry points called by the shim (exported from Go) ---- */
extern int goCoreBegin(int pid);
extern int goCoreEnd(int pid);
extern int goSyncStep(int pid, int step);
extern void goCoreAbort(int pid, char *msg);
extern int goInit(char *name, int argc, char **argv);
extern int goRegisterKernel(char *name, void *kernel);
extern int goHostBegin(int nprocs);
extern int goHostEnd(void);
extern int goHostNprocs(void);
extern struct ebsp_core *goSpmdStart(void);
extern void goSpmdDone(int ok);
/* Reports memory a program handed over that cannot be used: n bytes at p
 * for argument `what` (e.g. "the source") of `call`, to be read, or
 * written with write, of which the first `good` can (user_memory_good);
 * on core pid (stopping the run), or on the host for pid -1 (a line on
 * stderr). */
extern void goBadUserMemory(int pid, char *call, char *what, uintptr_t p, size_t n, size_t good, int write);
/* Whether p, argument `what` of `call` with n bytes to copy, is a small
 * number (user_pointer_small, NULL too); it is then reported as above
 * (nothing of it can be used) and the call must not go on. */
static inline int user_pointer_refused(int pid, const char *call, const char *what, const void *p, size_t n, int write)
{
    if (!user_pointer_small(p, n))
        return 0;
    goBadUserMemory(pid, (char *)call, (char *)what, (uintptr_t)p, n, 0, write);
    return 1;
}
/* Whether the n bytes at p cannot all be read (write: written), small or
 * not mapped so; then reported as above and the call must not go on. */
static inline int user_memory_refused(int pid, const char *call, const char *what, const void *p, size_t n, int write)
{
    if (user_pointer_refused(pid, call, what, p, n, write))
        return 1;
    size_t good = user_memory_good(p, n, write);
    if (good >= n)
        return 0;
    goBadUserMemory(pid, (char *)call, (char *)what, (uintptr_t)p, n, good, write);
    return 1;
}
/* Stores a call's result, n bytes of value, at p, where the program asked
 * for it; with copy_user, so that memory that is not there is no crash. 0
 * when it cannot be written: then reported on self (the run stops), or
 * nothing is stored outside a section (self NULL: the call was refused). */
static inline int user_store(struct ebsp_core *self, const char *call, const char *what, void *p, const void *value, size_t n)
{
    if (copy_user(p, value, n))
        return 1;
    if (self)
        goBadUserMemory(self->pid, (char *)call, (char *)what, (uintptr_t)p, n, 0, 1);
    return 0;
}
extern void goEndCallback(int running);

/* ---- the MPI world (world.c, world.go) ---- */

/* The ranks of the Open MPI job, 0 when not started by mpirun with 2 or
 * more, and this process's rank (0 then): set when the machine is made. */
extern int ebsp_world_ranks, ebsp_world_rank;
/* The cores each rank runs (EBSP_RANK_CORES): core pid runs on rank
 * pid / ebsp_world_per_rank. */
extern int ebsp_world_per_rank;
/* The pids this process runs in an MPI world's section (world_local). */
extern int ebsp_world_first, ebsp_world_count;
/* Whether core pid's memory is in this process: always outside mpirun. */
static inline int world_local(int pid)
{
    return ebsp_world_ranks <= 1 || (unsigned)(pid - ebsp_world_first) < (unsigned)ebsp_world_count;
}
/* An MPI world's section is running (its rounds: world.c). */
extern int ebsp_world_section;
extern void goWorldReturned(int pid);
/* This rank's cores returned from the SPMD function without bsp_end (a
 * rank other than 0): ends the rank (world/mpi/job.go, Job.Leave). */
extern void goWorldLeave(int pid);
extern void goWorldLocal(int nprocs, int *first, int *count);
/* Ends this rank: a rank other than 0 after its section (0), or the whole
 * job after a stopped section (non-zero). Returns only outside mpirun. */
extern void goWorldEnd(int code);

/* ---- a face's messages between the processes of a section (world_msg.c) ----
 *
 * The world's channel for a face with messages of its own (the LQCD
 * face's channels and collectives): point-to-point messages between the
 * processes of the running section (MPI ranks: core pid runs on rank
 * pid / ebsp_world_per_rank), beside its rounds, and gathers of every
 * core's bytes. Any thread may call. Outside a section of several
 * processes nothing is sent and nothing arrives. */
enum {
    WORLD_BODY_APART = 8192,                  /* a body this long goes as a message of its own */
    WORLD_SMALL_MAX = WORLD_BODY_APART + 256, /* a message's bytes but such a body */
};
struct world_send;
/* A persistent send of head_len bytes at head, then body_len at body, to
 * the process rank, both read at each start (a body of WORLD_BODY_APART
 * bytes or more goes apart, read in place; a smaller one is copied);
 * NULL on failure. */
struct world_send *world_send_init(const void *head, int head_len, const void *body, int body_len, int rank);
int world_send_start(struct world_send *s);
/* 1 when the last start completed (its bytes may change), 0 not yet, -1
 * failed. */
int world_send_test(struct world_send *s);
/* Frees s (NULL: nothing); 1 when its last start was still in flight:
 * its head and body must then stay. */
int world_send_free(struct world_send *s);
/* Sends a copy of len bytes (at most WORLD_SMALL_MAX) to rank. */
int world_send_small(const void *bytes, int len, int rank);
/* A buffer of WORLD_SMALL_MAX bytes (NULL without memory) that
 * world_send_buffer sends without a copy: 0, and the buffer is the
 * world's from then on; -1, and it is still the caller's. */
void *world_buffer(void);
int world_send_buffer(void *buf, int len, int rank);
/* The next message from any process, in a malloc'd buffer of *len bytes
 * from *rank, or NULL when none arrived (or another thread looks); the
 * caller gives it back with world_release (or free). */
void *world_receive(int *rank, int *len);
void world_release(void *buf);
/* The body sent apart after the head world_receive just gave from rank,
 * len bytes into buf; waits for it. Bodies pair with heads in order: the
 * caller takes each such head's body before the next head. 0 or -1. */
int world_receive_body(int rank, void *buf, int len);
/* Every core's per_core bytes, core q's at all + q * per_core, from the
 * bytes of this process's cores (mine, in pid order) and the others' of
 * the section's ncores: 0 or -1. Runs the progress hook while it waits. */
int world_gather_cores(const void *mine, size_t per_core, void *all, int ncores);
/* poll runs while this process waits for the others (a round of a
 * barrier, a gather), so that it still takes their messages in (NULL:
 * nothing). */
void world_progress(void (*poll)(void));

#endif
