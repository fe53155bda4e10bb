/*
 * The standard BSPlib face (include/bsp.h): the SPMD section of a BSPlib
 * program on the emulated cores, on the engine of the EBSP face.
 *
 * A section is one run of the scheduler whose pid 0 is the thread that
 * called bsp_begin(P) (adopted, sched_adopt) and whose P-1 other cores run
 * the program's SPMD function (bsp_init) or, with no bsp_init,
 * main(argc, argv): threads, or coroutines (EBSP_SCHED=coro) with pid 0
 * one of them until bsp_end, its thread waiting. A monitor thread runs the
 * scheduler's host loop (watchdog) meanwhile. Every call checks that it
 * comes from a core of the section after its bsp_begin (in_section),
 * converts MulticoreBSP's
 * types (size_t sizes, unsigned pids) or the compatibility mode's ints
 * to the engine's, and forwards to the EBSP core call, so both faces share
 * one implementation of every rule.
 *
 * Leaving: the other cores leave their SPMD function at bsp_end (longjmp to
 * core_main, as a kernel's core does on abort). pid 0 cannot be unwound
 * (its frames are the program's), so a stopped section parks it
 * (bl_owner_leave, its core's `leave` hook) and the monitor ends the program
 * with exit status 1 once every core has left.
 */
#define _GNU_SOURCE
#include "../../capi/faces.h"
#include "bsplib.h"

#include <e_bsp.h> /* the EBSP core calls, which do the work */
#define BSPLIB_NO_NAME_MAP
#include <bsp.h>

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MIXED_FACES "a program may not mix the EBSP face (host_bsp.h, e_bsp.h) and the BSPlib face (bsp.h) in one SPMD run"

typedef int (*main_fn)(int, char **);

static struct {
    void (*spmd)(void);    /* bsp_init's SPMD function, or NULL */
    main_fn main;          /* without bsp_init: what the other cores run */
    char ***core_argv;     /* their private argv arrays (main may change them) */
    _Atomic int running;   /* a section is running */
    struct ebsp_core *cores;
    int nprocs;
    pthread_t monitor;
} bl;

/* The process's arguments, as glibc hands them to constructors. */
static int proc_argc;
static char **proc_argv;

int (*bl_core_main)(int argc, char **argv);

__attribute__((constructor)) static void capture_args(int argc, char **argv, char **envp)
{
    (void)envp;
    proc_argc = argc;
    proc_argv = argv;
}


/* ---- diagnostics ---- */

/* A misuse outside any section: nothing to stop, so the program ends. */
__attribute__((noreturn, format(printf, 1, 2))) static void bl_fatal(const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    char *what = bl_vformat(format, ap);
    va_end(ap);
    const char *msg = what ? what : format;
    char *line = malloc(strlen(msg) + 16);
    if (line) {
        sprintf(line, "ebsp: ERROR: %s\n", msg);
        out_stderr(line);
    }
    free(line);
    free(what);
    atomic_store(&bl_exiting, 1);
    exit(EXIT_FAILURE);
}

/* The calling thread is not a core of a section after its bsp_begin. */
__attribute__((noinline)) static void bl_refuse(const char *call)
{
    struct ebsp_core *self = ebsp_self;
    if (self && !atomic_load(&bl.running))
        bl_misuse(self, call, "a BSPlib call (bsp.h) in an EBSP kernel; " MIXED_FACES);
    else if (self)
        bl_misuse(self, call, "called before bsp_begin on this core (an SPMD function starts with bsp_begin)");
    else
        bl_fatal("%s: called outside an SPMD section (every BSPlib call but bsp_init, bsp_begin, bsp_nprocs "
                 "and bsp_abort belongs between bsp_begin and bsp_end, on a core of the section)", call);
}

/* The calling core, between its bsp_begin and bsp_end of a BSPlib
 * section; else the call is refused (NULL). Kept in the core, not the
 * thread: under coroutines a thread runs many cores. */
static inline struct ebsp_core *bl_core(const char *call)
{
    struct ebsp_core *self = ebsp_self;
    if (__builtin_expect(self != NULL && self->in_section, 1))
        return self;
    bl_refuse(call);
    return NULL;
}

/* A size, offset or count for the engine, which takes ints. A negative int
 * that went through size_t comes back negative (the engine reports it);
 * larger values are refused here. 0 when the run was stopped. */
__attribute__((noinline)) static int bl_large(struct ebsp_core *self, const char *call, const char *what, size_t v, int *out)
{
    if (v >= (size_t)INT_MIN) {
        *out = (int)(long long)v;
        return 1;
    }
    bl_misuse(self, call, "%s %zu is larger than INT_MAX (%d): libebsp moves and registers at most that many bytes at once",
              what, v, INT_MAX);
    return 0;
}

static inline int bl_int(struct ebsp_core *self, const char *call, const char *what, size_t v, int *out)
{
    if (__builtin_expect(v <= INT_MAX, 1)) {
        *out = (int)v;
        return 1;
    }
    return bl_large(self, call, what, v, out);
}

/* ---- the section ---- */

/* What the other cores run. */
static int bl_core_entry(void)
{
    struct ebsp_core *self = ebsp_self;
    if (bl.spmd)
        bl.spmd();
    else
        bl.main(proc_argc, bl.core_argv[self->pid]);
    return 0; /* returned without bsp_end: the scheduler reports it if others wait */
}

/* Ends the program after a stopped section, once every core has left. */
__attribute__((noreturn)) static void bl_exit_stopped(void)
{
    atomic_store(&bl_exiting, 1);
    sched_join();
    goBsplibFinish(0);
    out_flush();
    goWorldEnd(EXIT_FAILURE); /* under mpirun: ends every rank */
    exit(EXIT_FAILURE);
}

static void *bl_monitor(void *arg)
{
    (void)arg;
    sched_host_loop();
    if (sched_stopped())
        bl_exit_stopped();
    return NULL;
}

/* The program's exit (on_exit: its status is named, and under mpirun the
 * job's end, world/mpi/job.go, follows this line). */
static void bl_atexit(int status, void *arg)
{
    (void)arg;
    if (!atomic_load(&bl.running) || atomic_load(&bl_exiting))
        return;
    char line[320], where[96] = "";
    struct ebsp_core *self = ebsp_self;
    if (self)
        snprintf(where, sizeof where, " on core %02d in superstep %d", self->pid,
                 (int)atomic_load((_Atomic int32_t *)&self->superstep));
    snprintf(line, sizeof line,
             "ebsp: ERROR: the program exits during a BSPlib SPMD section "
             "(exit, or a return from main, before every core called bsp_end): exit status %d%s\n",
             status, where);
    out_stderr(line);
}

/* Private copies of the argv array, one per core that runs main. */
static char ***copy_argv(int n)
{
    char ***all = calloc((size_t)n, sizeof *all);
    for (int i = 0; all && i < n; i++) {
        all[i] = calloc((size_t)proc_argc + 1, sizeof(char *));
        if (!all[i])
            return all; /* the caller checks each */
        for (int k = 0; k < proc_argc; k++)
            all[i][k] = proc_argv[k];
    }
    return all;
}

static void free_argv(char ***all, int n)
{
    for (int i = 0; all && i < n; i++)
        free(all[i]);
    free(all);
}

/* A thread that is no core starts a section of P cores and becomes pid 0. */
static void bl_start_section(long long P, const void *caller)
{
    static int atexit_done;
    if (atomic_load(&bl.running))
        bl_fatal("bsp_begin: a BSPlib SPMD section is running on another thread; one section at a time");
    size_t cap = mcbsp_thread_cap();
    if (cap && P > 0 && (unsigned long long)P > cap)
        bl_fatal("bsp_begin: %lld cores requested; mcbsp_set_maximum_threads allows 1..%zu", P, cap);
    main_fn main_entry = bl.spmd ? NULL : bl_core_main;
    if (!bl.spmd && !main_entry) {
        void *sym = dlsym(RTLD_DEFAULT, "main");
        memcpy(&main_entry, &sym, sizeof sym);
        if (!main_entry)
            bl_fatal("bsp_begin: without bsp_init(spmd, argc, argv) first, the other cores run main, but main is not in "
                     "the program's dynamic symbol table: link with -rdynamic (bspcc and `pkg-config --libs bsp` do), "
                     "or call bsp_init first");
    }
    struct ebsp_core *cores = goBsplibBegin(P);
    if (!cores) {
        atomic_store(&bl_exiting, 1);
        exit(EXIT_FAILURE); /* the engine said why */
    }
    goBsplibGlobalsCheck();
    int n = ebsp_active_nprocs; /* under mpirun, rank 0's count */
    int first, count; /* the pids this process runs: all but under mpirun */
    goWorldLocal(n, &first, &count);
    char ***argvs = NULL;
    if (main_entry) {
        argvs = copy_argv(n);
        for (int i = 0; i < n; i++)
            if (!argvs || !argvs[i])
                bl_fatal("bsp_begin: out of memory");
    }
    if (!atexit_done)
        atexit_done = on_exit(bl_atexit, NULL) == 0;
    bl.main = main_entry;
    bl.core_argv = argvs;
    bl.cores = cores;
    bl.nprocs = n;
    const void *spmd_code = bl.spmd ? (const void *)bl.spmd : (const void *)main_entry;
    const void *spmd_base = object_base(spmd_code);
    for (int i = first + 1; i < first + count; i++) {
        cores[i].sched.entry = bl_core_entry;
        cores[i].sched.can_unwind = 1;
        cores[i].kernel_base = spmd_base; /* the watchdog unwinds a core looping in there */
    }
    struct ebsp_core *owner = &cores[first]; /* pid 0, or this rank's first */
    owner->sched.leave = bl_owner_leave;
    owner->kernel_base = object_base(caller);
    atomic_store(&bl.running, 1);
    sched_adopt(&owner->sched);
    bl_start_core(owner);
    cores_start(owner, count, 1);
    if (pthread_create(&bl.monitor, NULL, bl_monitor, NULL) != 0)
        bl_fatal("bsp_begin: could not start a thread; lower the core count or EBSP_STACK_KB");
}

/* bsp_begin on a core: a core of the section joins it. The count it asks
 * for is pid 0's to decide, as in MulticoreBSP: an SPMD function named in
 * bsp_init often computes it from bsp_nprocs(), which on the other cores
 * is the section's already (bsp_begin(bsp_nprocs() - 1) asks for one
 * core fewer there). Without bsp_init a different count means that the
 * cores, running main anew, met another section's bsp_begin: refused. */
static void bl_join(struct ebsp_core *self, long long P)
{
    if (!atomic_load(&bl.running))
        bl_misuse(self, "bsp_begin", "a BSPlib call (bsp.h) in an EBSP kernel; " MIXED_FACES);
    else if (self->in_section)
        bl_misuse(self, "bsp_begin", "called again inside a running SPMD section (a nested section starts with bsp_init "
                  "on this core first)");
    else if (P != bl.nprocs && !bl.spmd && self->section == &ebsp_outer_section)
        bl_misuse(self, "bsp_begin", "this core asks for %lld cores, the section was started with %d; "
                  "every core calls bsp_begin with the same count (without bsp_init the other cores run main "
                  "from its start, so they reach its first bsp_begin: give each section its own function, "
                  "named in bsp_init)", P, bl.nprocs);
    else
        bl_start_core(self);
}

static void bl_begin(long long P, const void *caller)
{
    struct ebsp_core *self = ebsp_self;
    if (self && self->in_section && bl_nest_pending())
        bl_nest_begin(self, P, caller);
    else if (self)
        bl_join(self, P);
    else
        bl_start_section(P, caller);
}

void bsplib_begin(unsigned int P)
{
    bl_begin(P, __builtin_return_address(0));
}

void bsplib_begin_int(int P)
{
    bl_begin(P, __builtin_return_address(0));
}

/* Under mpirun, after this rank's first core returned from the SPMD
 * function without bsp_end: whether the rank's other cores returned too
 * (1), within a second; else (0) one computes on or waits in a barrier,
 * and the deadlock is reported. (A core released from its last barrier
 * may show it a little longer, so one seen there is looked at again.) */
static int others_left(int self)
{
    const struct timespec pause = {0, 100000};
    for (int waits = 0; waits < 10000; waits++) {
        int left = 1;
        for (int pid = ebsp_world_first; pid < ebsp_world_first + ebsp_world_count; pid++)
            left &= pid == self || sched_where(pid) == WHERE_FINISHED;
        if (left)
            return 1;
        nanosleep(&pause, NULL);
    }
    return 0;
}

void bsplib_init(void (*spmd)(void), int argc, char **argv)
{
    (void)argc;
    (void)argv;
    struct ebsp_core *self = ebsp_self;
    if (self && self->in_section) {
        bl_nest_init(self, spmd);
        return;
    }
    if (self) {
        if (atomic_load(&bl.running))
            bl_misuse(self, "bsp_init", "called inside an SPMD section; call it in main, before bsp_begin");
        else
            bl_misuse(self, "bsp_init", "a BSPlib call (bsp.h) in an EBSP kernel; " MIXED_FACES);
        return;
    }
    if (!spmd)
        bl_fatal("bsp_init: the SPMD function is NULL");
    bl.spmd = spmd;
    int ready = goBsplibReady();
    if (ready && ebsp_world_rank == 0 && ebsp_world_ranks > 1)
        bl_globals_snapshot(); /* rank 0's first bsp_begin compares (goBsplibGlobalsCheck) */
    if (ready && ebsp_world_rank != 0) {
        /* under mpirun only rank 0 goes on in main (it may read input):
         * the others run the SPMD function now, and end */
        spmd();
        if (atomic_load(&bl.running) && ebsp_self && others_left(ebsp_self->pid)) {
            /* returned without bsp_end: as in one process, an error once a
             * core waits for it; rank 0's exit says it once */
            atomic_store(&bl_exiting, 1);
            goWorldLeave(ebsp_self->pid);
        }
        if (atomic_load(&bl.running) && ebsp_self) {
            /* returned without bsp_end: the other ranks wait for it in vain */
            goWorldReturned(ebsp_self->pid);
            sched_stop();
            bl_owner_leave(); /* the monitor reports the stop and ends the job */
        }
        goWorldEnd(0);
    }
}

/* pid 0 at the end of its bsp_end: waits for the others, ends the run. */
static void bl_finish_section(void)
{
    int n = bl.nprocs;
    struct ebsp_core *cores = bl.cores;
    sched_release();
    pthread_join(bl.monitor, NULL); /* it ends the program if the run was stopped */
    sched_join();
    sched_self = NULL;
    reqlog_free_all(cores, n);
    direct_free_all(cores, n);
    hp_free_all(cores, n);
    free_argv(bl.core_argv, n);
    bl.core_argv = NULL;
    bl.cores = NULL;
    goBsplibFinish(1);
    atomic_store(&bl.running, 0);
    if (ebsp_world_rank != 0)
        goWorldEnd(0); /* after bsp_end only pid 0 goes on */
}

void bsplib_end(void)
{
    struct ebsp_core *self = bl_core("bsp_end");
    if (!self)
        return;
    reqlog_drain(self); /* a misuse in the last superstep is still reported */
    if (goBsplibCoreEnd(self->pid))
        sched_barrier(WHERE_END);
    sched_leave_if_stopped();
    self->in_section = 0;
    if (self->sched.leave == NULL)
        longjmp(self->sched.exit_jmp, 1); /* out of the SPMD function: code after bsp_end is pid 0's */
    if (self->section != &ebsp_outer_section)
        bl_nest_finish(self); /* back in the section around it */
    else
        bl_finish_section();
}

/* ---- enquiry ---- */

unsigned int bsplib_nprocs(void)
{
    struct ebsp_core *self = ebsp_self;
    if (self && self->in_section)
        return (unsigned int)ebsp_active_nprocs;
    if (self && atomic_load(&bl.running))
        return (unsigned int)ebsp_active_nprocs; /* a core before its bsp_begin */
    if (self) {
        bl_refuse("bsp_nprocs");
        return 0;
    }
    unsigned int available = (unsigned int)goBsplibAvailable(); /* the cores of the mesh */
    size_t cap = mcbsp_thread_cap();
    return cap && cap < available ? (unsigned int)cap : available;
}

int bsplib_nprocs_int(void)
{
    return (int)bsplib_nprocs();
}

unsigned int bsplib_pid(void)
{
    struct ebsp_core *self = bl_core("bsp_pid");
    return self ? (unsigned int)self->pid : 0;
}

int bsplib_pid_int(void)
{
    return (int)bsplib_pid();
}

double bsplib_time(void)
{
    struct ebsp_core *self = bl_core("bsp_time");
    return self ? (double)(ebsp_now_ns() - self->begin_ns) * 1e-9 : 0.0;
}

/* ---- synchronisation and abort ---- */

SIBLING_CALLS void bsplib_sync(void)
{
    if (bl_core("bsp_sync"))
        bsp_sync();
}

/* bsp_abort and bsp_vabort, each its own exported frame, so that a crash
 * in formatting the message names the call the program made. */
static void bl_vabort(const char *format, va_list ap)
{
    char *text = bl_vformat(format ? format : "bsp_abort", ap);
    const char *msg = text ? text : "bsp_abort";
    size_t len = strlen(msg);
    char *line = malloc(len + 2);
    if (line) {
        memcpy(line, msg, len + 1);
        if (len == 0 || msg[len - 1] != '\n')
            strcpy(line + len, "\n");
        out_stderr(line);
        free(line);
    }
    struct ebsp_core *self = ebsp_self;
    if (!self) { /* outside a section */
        free(text);
        atomic_store(&bl_exiting, 1);
        out_flush();
        exit(EXIT_FAILURE);
    }
    if (!atomic_load(&bl.running)) {
        free(text);
        bl_refuse("bsp_abort");
        return;
    }
    if (!sched_stopped())
        goCoreAbort(self->pid, (char *)msg); /* stops the run */
    free(text);
    sched_leave_if_stopped();
}

void bsplib_vabort(const char *format, va_list ap)
{
    bl_vabort(format, ap);
}

void bsplib_abort(const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    bl_vabort(format, ap);
    va_end(ap);
}

/* ---- registration ---- */

void bsplib_push_reg(const void *address, size_t size)
{
    struct ebsp_core *self = bl_core("bsp_push_reg");
    int n;
    if (self && bl_int(self, "bsp_push_reg", "size", size, &n))
        bsp_push_reg(address, n);
}

void bsplib_push_reg_int(const void *address, int size)
{
    if (bl_core("bsp_push_reg"))
        bsp_push_reg(address, size);
}

void bsplib_pop_reg(const void *address)
{
    if (bl_core("bsp_pop_reg"))
        bsp_pop_reg(address);
}

/* ---- DRMA ---- */

/* A pid for the engine, which takes ints: one beyond INT_MAX names no core
 * and is reported as the program passed it (unsigned), not as the negative
 * int it would become. 0 when the run was stopped. */
__attribute__((noinline)) static int bl_bad_pid(struct ebsp_core *self, const char *call, unsigned int pid)
{
    bl_misuse(self, call, "core %u does not exist (this run has cores 0..%d)", pid, ebsp_active_nprocs - 1);
    return 0;
}

static inline int bl_pid(struct ebsp_core *self, const char *call, unsigned int pid, int *out)
{
    *out = (int)pid;
    return __builtin_expect(pid <= INT_MAX, 1) || bl_bad_pid(self, call, pid);
}

/* offset and size as ints, or 0 (reported) */
static inline int bl_range(struct ebsp_core *self, const char *call, size_t offset, size_t size, int *off, int *n)
{
    return bl_int(self, call, "offset", offset, off) && bl_int(self, call, "size", size, n);
}

/* The core of a section when pid, offset and size are ints: the calls'
 * dispatchers (put_request..., direct.h) may take the request without
 * the face's checks, which those paths make themselves. */
static inline struct ebsp_core *bl_fast_core(unsigned int pid, size_t offset, size_t size)
{
    struct ebsp_core *self = ebsp_self;
    return self && self->in_section && pid <= INT_MAX && offset <= INT_MAX && size <= INT_MAX ? self : NULL;
}

/* bsplib_put when bl_fast_core refused: the face's checks, then the
 * dispatcher. Out of line, so that bsplib_put holds one copy of it. */
__attribute__((noinline)) static void bl_put_checked(unsigned int pid, const void *source, const void *destination, size_t offset,
                                                     size_t size)
{
    struct ebsp_core *self = bl_core("bsp_put");
    int off, n;
    int target;
    if (self && bl_pid(self, "bsp_put", pid, &target) && bl_range(self, "bsp_put", offset, size, &off, &n))
        put_request(self, target, source, (void *)destination, off, n);
}

SIBLING_CALLS void bsplib_put(unsigned int pid, const void *source, const void *destination, size_t offset, size_t size)
{
    struct ebsp_core *fast = bl_fast_core(pid, offset, size);
    if (fast)
        put_request(fast, (int)pid, source, (void *)destination, (int)offset, (int)size);
    else
        bl_put_checked(pid, source, destination, offset, size);
}

void bsplib_put_int(int pid, const void *source, const void *destination, int offset, int size)
{
    if (bl_core("bsp_put"))
        bsp_put(pid, source, (void *)destination, offset, size);
}

SIBLING_CALLS void bsplib_hpput(unsigned int pid, const void *source, const void *destination, size_t offset, size_t size)
{
    struct ebsp_core *self = bl_core("bsp_hpput");
    int off, n;
    int target;
    if (self && bl_pid(self, "bsp_hpput", pid, &target) && bl_range(self, "bsp_hpput", offset, size, &off, &n))
        bsp_hpput(target, source, (void *)destination, off, n);
}

void bsplib_hpput_int(int pid, const void *source, const void *destination, int offset, int size)
{
    if (bl_core("bsp_hpput"))
        bsp_hpput(pid, source, (void *)destination, offset, size);
}

/* bsplib_get when bl_fast_core refused (see bl_put_checked). */
__attribute__((noinline)) static void bl_get_checked(unsigned int pid, const void *source, size_t offset, void *destination,
                                                     size_t size)
{
    struct ebsp_core *self = bl_core("bsp_get");
    int off, n;
    int target;
    if (self && bl_pid(self, "bsp_get", pid, &target) && bl_range(self, "bsp_get", offset, size, &off, &n))
        get_request(self, target, source, off, destination, n);
}

SIBLING_CALLS void bsplib_get(unsigned int pid, const void *source, size_t offset, void *destination, size_t size)
{
    struct ebsp_core *fast = bl_fast_core(pid, offset, size);
    if (fast)
        get_request(fast, (int)pid, source, (int)offset, destination, (int)size);
    else
        bl_get_checked(pid, source, offset, destination, size);
}

void bsplib_get_int(int pid, const void *source, int offset, void *destination, int size)
{
    if (bl_core("bsp_get"))
        bsp_get(pid, source, offset, destination, size);
}

SIBLING_CALLS void bsplib_hpget(unsigned int pid, const void *source, size_t offset, void *destination, size_t size)
{
    struct ebsp_core *self = bl_core("bsp_hpget");
    int off, n;
    int target;
    if (self && bl_pid(self, "bsp_hpget", pid, &target) && bl_range(self, "bsp_hpget", offset, size, &off, &n))
        bsp_hpget(target, source, off, destination, n);
}

void bsplib_hpget_int(int pid, const void *source, int offset, void *destination, int size)
{
    if (bl_core("bsp_hpget"))
        bsp_hpget(pid, source, offset, destination, size);
}

void bsplib_direct_get(unsigned int pid, const void *source, size_t offset, void *destination, size_t size)
{
    struct ebsp_core *self = bl_core("bsp_direct_get");
    int off, n;
    int target;
    if (self && bl_pid(self, "bsp_direct_get", pid, &target) && bl_range(self, "bsp_direct_get", offset, size, &off, &n))
        bsp_direct_get(target, source, off, destination, n);
}

void bsplib_direct_get_int(int pid, const void *source, int offset, void *destination, int size)
{
    if (bl_core("bsp_direct_get"))
        bsp_direct_get(pid, source, offset, destination, size);
}

/* ---- BSMP ---- */

void bsplib_set_tagsize(size_t *size)
{
    struct ebsp_core *self = bl_core("bsp_set_tagsize");
    int n;
    if (!self)
        return;
    if (!size) {
        bl_misuse(self, "bsp_set_tagsize", "the tag size pointer is NULL");
        return;
    }
    if (user_memory_refused(self->pid, "bsp_set_tagsize", "the tag size", size, sizeof *size, 1)) {
        sched_leave_if_stopped();
        return;
    }
    if (bl_int(self, "bsp_set_tagsize", "tag size", *size, &n)) {
        bsp_set_tagsize(&n);
        *size = (size_t)n;
    }
}

void bsplib_set_tagsize_int(int *size)
{
    struct ebsp_core *self = bl_core("bsp_set_tagsize");
    if (self && !size)
        bl_misuse(self, "bsp_set_tagsize", "the tag size pointer is NULL");
    else if (self)
        bsp_set_tagsize(size);
}

/* bsplib_send when bl_fast_core refused (see bl_put_checked). */
__attribute__((noinline)) static void bl_send_checked(unsigned int pid, const void *tag, const void *payload, size_t size)
{
    struct ebsp_core *self = bl_core("bsp_send");
    int n;
    int target;
    if (self && bl_pid(self, "bsp_send", pid, &target) && bl_int(self, "bsp_send", "size", size, &n))
        send_request(self, target, tag, payload, n);
}

SIBLING_CALLS void bsplib_send(unsigned int pid, const void *tag, const void *payload, size_t size)
{
    struct ebsp_core *fast = bl_fast_core(pid, 0, size);
    if (fast)
        send_request(fast, (int)pid, tag, payload, (int)size);
    else
        bl_send_checked(pid, tag, payload, size);
}

void bsplib_send_int(int pid, const void *tag, const void *payload, int size)
{
    if (bl_core("bsp_send"))
        bsp_send(pid, tag, payload, size);
}

void bsplib_hpsend(unsigned int pid, const void *tag, const void *payload, size_t size)
{
    struct ebsp_core *self = bl_core("bsp_hpsend");
    int n;
    int target;
    if (self && bl_pid(self, "bsp_hpsend", pid, &target) && bl_int(self, "bsp_hpsend", "size", size, &n))
        bsp_send(target, tag, payload, n);
}

void bsplib_hpsend_int(int pid, const void *tag, const void *payload, int size)
{
    if (bl_core("bsp_hpsend"))
        bsp_send(pid, tag, payload, size);
}

/* The message calls' argument checks, which every other BSPlib makes too
 * (the EBSP face keeps the board's silence: its calls skip what they
 * cannot write). Each reports the misuse, which stops the run, and says
 * whether the call must stop here; EBSP_CHECKS=0 turns them off
 * (bl_checks), the calls then skipping what they cannot do. */
int bl_checks = 1;

static int bl_null(struct ebsp_core *self, const char *call, const void *p, const char *what)
{
    if (p || !bl_checks)
        return 0;
    bl_misuse(self, call, "%s is NULL", what);
    return 1;
}

static int bl_qsize_args(struct ebsp_core *self, const void *packets, const void *accumulated_size)
{
    return bl_null(self, "bsp_qsize", packets, "the pointer for the number of messages") ||
           bl_null(self, "bsp_qsize", accumulated_size, "the pointer for their payload bytes");
}

/* bsp_get_tag writes the status, and the first message's tag if it has
 * one (with the queue empty it copies nothing). */
static int bl_get_tag_args(struct ebsp_core *self, const void *status, const void *tag)
{
    if (bl_null(self, "bsp_get_tag", status, "the status pointer"))
        return 1;
    struct ebsp_msg *m = tag || !bl_checks ? NULL : next_message(self);
    if (!m || m->tag_len == 0)
        return 0;
    bl_misuse(self, "bsp_get_tag", "the tag buffer is NULL but the message's tag size is %lld", (long long)m->tag_len);
    return 1;
}

static int bl_move_args(struct ebsp_core *self, const void *payload, long long max_copy_size)
{
    if (!bl_checks)
        return 0;
    if (max_copy_size < 0)
        bl_misuse(self, "bsp_move", "negative size %lld", max_copy_size);
    else if (!payload && max_copy_size > 0)
        bl_misuse(self, "bsp_move", "the payload buffer is NULL but the size is %lld", max_copy_size);
    else if (!next_message(self))
        bl_misuse(self, "bsp_move", "the message queue is empty (bsp_qsize or bsp_get_tag tells)");
    else
        return 0;
    return 1;
}

static int bl_hpmove_args(struct ebsp_core *self, void **tag_ptr, void **payload_ptr)
{
    return bl_null(self, "bsp_hpmove", tag_ptr, "the pointer for the tag's address") ||
           bl_null(self, "bsp_hpmove", payload_ptr, "the pointer for the payload's address");
}

/* A result stored where the program asked for it (user_store); memory
 * there that cannot be written is reported and the core leaves. */
static void bl_store(struct ebsp_core *self, const char *call, const char *what, void *p, const void *value, size_t n)
{
    if (!user_store(self, call, what, p, value, n))
        sched_leave_if_stopped();
}

void bsplib_qsize(unsigned int *packets, size_t *accumulated_size)
{
    int n = 0, bytes = 0;
    struct ebsp_core *self = bl_core("bsp_qsize");
    if (self && !bl_qsize_args(self, packets, accumulated_size))
        bsp_qsize(&n, &bytes);
    unsigned int packets_u = (unsigned int)n;
    size_t bytes_z = (size_t)bytes;
    if (packets)
        bl_store(self, "bsp_qsize", "the pointer for the number of messages", packets, &packets_u, sizeof packets_u);
    if (accumulated_size)
        bl_store(self, "bsp_qsize", "the pointer for their payload bytes", accumulated_size, &bytes_z, sizeof bytes_z);
}

void bsplib_qsize_int(int *packets, int *accumulated_size)
{
    int n = 0, bytes = 0;
    struct ebsp_core *self = bl_core("bsp_qsize");
    if (self && !bl_qsize_args(self, packets, accumulated_size))
        bsp_qsize(&n, &bytes);
    if (packets)
        bl_store(self, "bsp_qsize", "the pointer for the number of messages", packets, &n, sizeof n);
    if (accumulated_size)
        bl_store(self, "bsp_qsize", "the pointer for their payload bytes", accumulated_size, &bytes, sizeof bytes);
}

void bsplib_get_tag(size_t *status, void *tag)
{
    int st = -1;
    struct ebsp_core *self = bl_core("bsp_get_tag");
    if (self && !bl_get_tag_args(self, status, tag))
        bsp_get_tag(&st, tag);
    size_t status_z = st < 0 ? SIZE_MAX : (size_t)st;
    if (status)
        bl_store(self, "bsp_get_tag", "the status pointer", status, &status_z, sizeof status_z);
}

void bsplib_get_tag_int(int *status, void *tag)
{
    int st = -1;
    struct ebsp_core *self = bl_core("bsp_get_tag");
    if (self && !bl_get_tag_args(self, status, tag))
        bsp_get_tag(&st, tag);
    if (status)
        bl_store(self, "bsp_get_tag", "the status pointer", status, &st, sizeof st);
}

/* bsp_move of a message the core holds, into a buffer that is there:
 * nothing to check (bl_move_args), no call (a loop of moves is half the
 * cost of a 16-byte message). 0 when the call must go the whole way. */
static inline int bl_move_fast(void *payload, long long max_copy_size)
{
    struct ebsp_core *self = ebsp_self;
    struct ebsp_msg *m;
    if (!self || !self->in_section || max_copy_size < 0 || (!payload && max_copy_size > 0) || !(m = next_message(self)))
        return 0;
    if (!move_message(self, m, payload, max_copy_size > INT_MAX ? INT_MAX : (int)max_copy_size))
        sched_leave_if_stopped(); /* the buffer cannot be written: reported */
    return 1;
}

void bsplib_move(void *payload, size_t max_copy_size)
{
    int n = max_copy_size > INT_MAX ? INT_MAX : (int)max_copy_size;
    if (bl_move_fast(payload, n))
        return;
    struct ebsp_core *self = bl_core("bsp_move");
    if (self && !bl_move_args(self, payload, n))
        bsp_move(payload, n);
}

void bsplib_move_int(void *payload, int max_copy_size)
{
    if (bl_move_fast(payload, max_copy_size))
        return;
    struct ebsp_core *self = bl_core("bsp_move");
    if (self && !bl_move_args(self, payload, max_copy_size))
        bsp_move(payload, max_copy_size);
}

size_t bsplib_hpmove(void **tag_ptr, void **payload_ptr)
{
    int size = -1;
    struct ebsp_core *self = bl_core("bsp_hpmove");
    if (self && !bl_hpmove_args(self, tag_ptr, payload_ptr))
        size = bsp_hpmove(tag_ptr, payload_ptr);
    return size < 0 ? SIZE_MAX : (size_t)size;
}

int bsplib_hpmove_int(void **tag_ptr, void **payload_ptr)
{
    int size = -1;
    struct ebsp_core *self = bl_core("bsp_hpmove");
    if (self && !bl_hpmove_args(self, tag_ptr, payload_ptr))
        size = bsp_hpmove(tag_ptr, payload_ptr);
    return size;
}
