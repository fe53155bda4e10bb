/*
 * capi's own interface, beside what it gives the faces (core.h): the
 * part of a core that is capi's alone (struct core_own: the C library's
 * state, statistics, the direct mode), making the cores, kernel loading,
 * faults, the MPI world's rounds and the Go entry points only capi calls.
 * No face includes it (gotests/layers_test.go).
 */
#ifndef EBSP_SHIM_H
#define EBSP_SHIM_H

#include "core.h"

typedef int (*ebsp_kernel_fn)(void);

/* Makes room for size more bytes (reqlog.c); 0 when out of memory. */
int bytes_reserve(struct ebsp_bytes *b, size_t size);

/* A large bsp_hpput to a core of another process: its record's header
 * (the engine's kindPut: kind, slot, offset, length) and its source,
 * which the transport sends from in the sync (direct.c, wire_hpput). */
struct wire_ref {
    struct engine_record header;
    const void *src;
    int32_t dst;
};

/* A core's direct requests to or from one other core in this superstep,
 * counted for EBSP_STATS (direct.c; the engine takes them at the sync). */
struct ebsp_tally {
    int64_t puts, put_bytes, gets, get_bytes, sends, send_bytes;
};

/* n cores, pids 0..n-1, each as at power-on (rand as after no srand);
 * NULL without memory (cores.c). */
struct ebsp_core *cores_alloc(int n);

/* bsp_end unmapped the emulated memories: a host crash at an address in
 * them is reported as a use of memory after bsp_end. */
void faults_released(const void *ext, size_t ext_bytes, const void *local, size_t local_bytes);
/* hook runs when a core crashes in its own code (or ends its thread),
 * before the process ends with status (128 + the signal of a crash);
 * faults bounds its time (the MPI world's end). */
void faults_on_core_crash(void (*hook)(int status));

/* Promotes libebsp to RTLD_GLOBAL so kernels resolve bsp_* even when the
 * host loaded us with RTLD_LOCAL (Python ctypes). Idempotent. */
void loader_make_global(void);
/* Loads one private instance of the shared object at path; on failure
 * returns NULL and writes a message to err. */
void *loader_open_instance(const char *path, char *err, size_t errlen);
ebsp_kernel_fn loader_entry(void *instance);
void loader_close_instance(void *instance);

/* Gives an instance rand, srand and strtok with their state in the calling
 * core, rand being newlib's, as on the board (kernel_libc.c). */
void kernel_libc_hook(void *instance);

/* Prints text on stdout through C stdio (output.c). */
void out_stdout(const char *text);

/* kind: as sched_hooks.report_stall's (scheduler.h). */
extern void goReportStall(int kind);
/* Binds the calling thread to a Go M (capi/gothreads.go). */
extern void goThreadEnter(void);

extern void goWorldFailed(int unpacking);
extern void goWorldDiverged(void);

/* A round in which this rank's cores have all left the section without
 * bsp_end (WHERE_FINISHED), given up after seconds (0: none): 0 when
 * every rank's did, else what mpiw_round returns (world.c). */
int world_leave_round(int step, int seconds);

/* Core pid's registration slot of variable, -1 when none (wire_put). */
extern int goWireSlot(int pid, void *variable);
/* The bytes core target registered for variable (its mirror here; no
 * bound when sizes are not checked), or 0 when it has none (wire_put). */
extern int64_t goWireBound(int pid, int target, void *variable);

/* MPI's end when the program exits with status (world.c's on_exit). */
extern void goWorldFinalize(int status);

/* The part of a core that is capi's alone (core.own), allocated with the
 * core (cores_alloc). */
struct core_own {
    int32_t direct_mode;     /* what the C path may do on its own: DIRECT_MODE_* (engine.Mirror.DirectMode) */
    struct wire_ref *wire_refs; /* large hpputs to other processes in this superstep (refs_stamp) */
    int32_t nrefs, refs_cap, refs_stamp;
    struct ebsp_tally *tally;  /* [pid]: direct requests counted for EBSP_STATS, or NULL */
    uint64_t rand_next;        /* its rand() state (kernel_libc.c) */
    char *strtok_last;         /* its strtok() position */
};

#endif
