/*
 * bsp.h -- the standard BSPlib face of libebsp, with the types and calls of
 * MulticoreBSP for C 2.0: unmodified BSPlib programs (an SPMD function,
 * bsp_begin(P) in main or in that function, bsp_put/bsp_get/bsp_send ...)
 * run on the emulated cores of libebsp.
 *
 *     bspcc prog.c -o prog          (or: gcc prog.c $(pkg-config --cflags --libs bsp))
 *     ./prog
 *
 * The SPMD model (MulticoreBSP's): the thread that calls bsp_begin(P)
 * becomes pid 0 and P-1 more cores start, each a thread of the process:
 *   - after bsp_init(spmd, argc, argv) they run spmd(), whose bsp_begin
 *     joins them to the section whatever count it passes (the usual form:
 *     main calls bsp_init, then spmd() itself);
 *   - without bsp_init they run main(argc, argv) from its start, as the
 *     processes of a BSPlib program all start in main; bsp_begin should then
 *     be the first statement of main. The library finds main through the
 *     dynamic symbol table: link with -rdynamic (bspcc and
 *     `pkg-config --libs bsp` do).
 * Code after bsp_end runs on pid 0 only: the other cores leave there.
 * bsp_begin may be called again after bsp_end (repeated SPMD sections);
 * a bsp_begin inside a running section (nested SPMD) is refused. Globals
 * are shared by all cores (they are threads), as with MulticoreBSP.
 *
 * Semantics (BSPlib): bsp_push_reg and bsp_pop_reg are collective and take
 * effect at the next bsp_sync; bsp_put copies its source at the call and
 * writes at the next sync; bsp_get reads at the next sync, all gets of a
 * superstep before any put; bsp_hpput/bsp_hpget/bsp_direct_get copy at
 * once; messages sent in one superstep are read in the next; tag size
 * changes take effect at the next sync. Offsets and sizes are in bytes;
 * one request moves at most INT_MAX bytes.
 *
 * Settings are the EBSP_* environment variables of libebsp: EBSP_MESH sets
 * the cores available (bsp_nprocs() before bsp_begin), EBSP_CHECKS,
 * EBSP_COMM_LIMIT_MB, EBSP_TIMEOUT, EBSP_STACK_KB (see README.md).
 *
 * Errors: a misuse inside an SPMD section is printed on stderr as
 *     "$PP: BSP ERROR: <call>: <what> (superstep N)"
 * and stops every core as bsp_abort does; a stopped section ends the
 * program with exit status 1 after the line "ebsp: run stopped: ...".
 * A BSPlib call outside an SPMD section (other than bsp_init, bsp_begin,
 * bsp_nprocs and bsp_abort) prints "ebsp: ERROR: <call>: ..." on stderr and
 * exits with status 1. See docs/errors.md.
 *
 * Names: libebsp also exports the EBSP platform's bsp_init, bsp_begin,
 * bsp_end, bsp_put ... with other signatures. This header maps every
 * BSPlib name to a distinct symbol (bsp_put -> bsplib_put, or
 * bsplib_put_int in compatibility mode), so both faces live in one
 * library. Do not include e_bsp.h or host_bsp.h in the same file; one SPMD
 * run uses one face, and mixing them is refused at run time.
 *
 * Compatibility mode: define MCBSP_COMPATIBILITY_MODE before including this
 * header (or pass -DMCBSP_COMPATIBILITY_MODE, `bspcc --compat`) for the
 * classic BSPlib types: pids, counts, sizes and offsets of type int.
 */
#ifndef BSPLIB_BSP_H
#define BSPLIB_BSP_H

#if !defined(BSPLIB_NO_NAME_MAP) && (defined(EBSP_E_BSP_H) || defined(EBSP_HOST_BSP_H))
#error "bsp.h (the BSPlib face) cannot be included together with e_bsp.h or host_bsp.h (the EBSP face)"
#endif

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h> /* MulticoreBSP's bsp.h includes it, and programs written for it use uint8_t etc. */

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define BSPLIB_PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#else
#define BSPLIB_PRINTF_LIKE(f, a)
#endif

/* ---- types -------------------------------------------------------------- */

#ifdef MCBSP_COMPATIBILITY_MODE
typedef int bsp_pid_t;    /* a core's id, 0..P-1 */
typedef int bsp_nprocs_t; /* a number of cores or of messages */
typedef int bsp_size_t;   /* bytes */
#else
typedef unsigned int bsp_pid_t;
typedef unsigned int bsp_nprocs_t;
typedef size_t bsp_size_t;
#endif

/* ---- the exported calls --------------------------------------------------
 * Each BSPlib call below is declared under its exported name; the macros at
 * the end of this header give it its BSPlib name.
 */

/* bsp_init: the function the other cores run when bsp_begin starts a
 * section (spmd calls bsp_begin first and bsp_end last). Call it in main
 * before the first bsp_begin; argc and argv are kept for the program. */
void bsplib_init(void (*spmd)(void), int argc, char **argv);

/* bsp_begin: starts an SPMD section of P cores, 1 <= P <= bsp_nprocs()
 * (the cores available); the caller becomes pid 0. On the other cores,
 * bsp_begin joins the section: in the function named in bsp_init their P
 * is ignored (pid 0's decides, as in MulticoreBSP); running main without
 * bsp_init, they must pass pid 0's P. */
void bsplib_begin(unsigned int P);

/* bsp_end: ends the section, collectively. On pid 0 it returns when every
 * core has ended; the other cores leave their SPMD function here. */
void bsplib_end(void);

/* bsp_nprocs: the cores of the section; before bsp_begin, the cores
 * available (EBSP_MESH). bsp_pid: the calling core's id. */
unsigned int bsplib_nprocs(void);
unsigned int bsplib_pid(void);

/* bsp_time: seconds since this core's bsp_begin (monotonic clock). */
double bsplib_time(void);

/* bsp_sync: ends the superstep (a barrier that carries out the
 * communication of the superstep). */
void bsplib_sync(void);

/* bsp_abort: prints the message (printf format) on stderr and stops every
 * core; the program exits with status 1. bsp_vabort: the same, va_list. */
void bsplib_abort(const char *format, ...) BSPLIB_PRINTF_LIKE(1, 2);
void bsplib_vabort(const char *format, va_list args);

/* Registration: collective (every core, in the same order), in force from
 * the next bsp_sync. Sizes may differ per core, and a core may register
 * NULL with size 0. bsp_pop_reg names the newest registration of the
 * address (a push of the same superstep counts: the two cancel out); the
 * k-th pop of a superstep withdraws the same registration on every core,
 * the one named by the lowest core whose k-th pop is not of NULL. */
void bsplib_push_reg(const void *address, size_t size);
void bsplib_pop_reg(const void *address);

/* DRMA. bsp_put: size bytes from source (copied now) to core pid's copy of
 * the registered destination, at offset, at the next sync. bsp_get: size
 * bytes at offset of core pid's copy of the registered source, read at the
 * next sync (before any put of the superstep), into destination.
 * bsp_hpput/bsp_hpget: the same, unbuffered (copied at once here).
 * bsp_direct_get (MulticoreBSP): a blocking get, done at once. */
void bsplib_put(unsigned int pid, const void *source, const void *destination, size_t offset, size_t size);
void bsplib_get(unsigned int pid, const void *source, size_t offset, void *destination, size_t size);
void bsplib_hpput(unsigned int pid, const void *source, const void *destination, size_t offset, size_t size);
void bsplib_hpget(unsigned int pid, const void *source, size_t offset, void *destination, size_t size);
void bsplib_direct_get(unsigned int pid, const void *source, size_t offset, void *destination, size_t size);

/* BSMP. bsp_set_tagsize: the tag size from the next sync on (collective);
 * *size becomes the previous one. Initially 0. bsp_send: a message of
 * size payload bytes and a tag to core pid, received after the next sync.
 * bsp_hpsend (MulticoreBSP): the same here. */
void bsplib_set_tagsize(size_t *size);
void bsplib_send(unsigned int pid, const void *tag, const void *payload, size_t size);
void bsplib_hpsend(unsigned int pid, const void *tag, const void *payload, size_t size);

/* bsp_qsize: messages in the queue and their payload bytes.
 * bsp_get_tag: *status = payload size of the first message (SIZE_MAX,
 * i.e. (bsp_size_t)-1, when the queue is empty) and its tag into tag.
 * bsp_move: copies at most max_copy_size payload bytes of the first
 * message and removes it. bsp_hpmove: pointers to the first message's tag
 * and payload (valid until the next sync), removes it and returns its
 * size; SIZE_MAX when the queue is empty. */
void bsplib_qsize(unsigned int *packets, size_t *accumulated_size);
void bsplib_get_tag(size_t *status, void *tag);
void bsplib_move(void *payload, size_t max_copy_size);
size_t bsplib_hpmove(void **tag_ptr, void **payload_ptr);

/* Compatibility mode (int types): the same calls. A negative size, offset
 * or pid is reported as such. */
void bsplib_begin_int(int P);
int bsplib_nprocs_int(void);
int bsplib_pid_int(void);
void bsplib_push_reg_int(const void *address, int size);
void bsplib_put_int(int pid, const void *source, const void *destination, int offset, int size);
void bsplib_get_int(int pid, const void *source, int offset, void *destination, int size);
void bsplib_hpput_int(int pid, const void *source, const void *destination, int offset, int size);
void bsplib_hpget_int(int pid, const void *source, int offset, void *destination, int size);
void bsplib_direct_get_int(int pid, const void *source, int offset, void *destination, int size);
void bsplib_set_tagsize_int(int *size);
void bsplib_send_int(int pid, const void *tag, const void *payload, int size);
void bsplib_hpsend_int(int pid, const void *tag, const void *payload, int size);
void bsplib_qsize_int(int *packets, int *accumulated_size);
void bsplib_get_tag_int(int *status, void *tag);
void bsplib_move_int(void *payload, int max_copy_size);
int bsplib_hpmove_int(void **tag_ptr, void **payload_ptr);

/* ---- MulticoreBSP's machine-control extensions ----------------------------
 * MulticoreBSP for C lets a program say, before bsp_begin, how many
 * hardware threads its sections may use and how to pin them to the
 * machine's cores. libebsp's cores are emulated, so only the maximum
 * number of threads acts: bsp_nprocs() before bsp_begin is at most that
 * many, and bsp_begin refuses more (0, the default, leaves the cores of
 * EBSP_MESH). mcbsp_set_pinning also sets that maximum to its length, as
 * in MulticoreBSP. Every other setting is kept and read back, and changes
 * nothing. The settings belong to the process (MulticoreBSP keeps them per
 * thread, for nested sections) and apply from the next bsp_begin.
 */

/* The two enums of MulticoreBSP's mcbsp-affinity.h, under its include
 * guard: a program (or MulticoreBSP's own tests) that includes that
 * header as well, before or after this one, declares them once. */
#ifndef _H_MCBSP_AFFINITY
#define _H_MCBSP_AFFINITY
/* How MulticoreBSP pins threads to cores; SCATTER is the default. */
enum mcbsp_affinity_mode { SCATTER = 0, COMPACT, MANUAL };
/* How the hardware threads of one core are numbered; CONSECUTIVE is the default. */
enum mcbsp_thread_numbering { CONSECUTIVE = 0, WRAPPED };
#endif

void mcbsp_set_maximum_threads(size_t max);
void mcbsp_set_affinity_mode(enum mcbsp_affinity_mode mode);
void mcbsp_set_available_cores(size_t num_cores);
void mcbsp_set_threads_per_core(size_t threads_per_core);
void mcbsp_set_unused_threads_per_core(size_t unused_threads_per_core);
void mcbsp_set_thread_numbering(enum mcbsp_thread_numbering numbering);
/* pinning: length core numbers, copied; sets the maximum to length
 * threads and, unless pinning is NULL (which forgets a pinning), the
 * affinity to MANUAL. */
void mcbsp_set_pinning(const size_t *pinning, size_t length);
/* reserved: length core numbers, copied; NULL for none. */
void mcbsp_set_reserved_cores(const size_t *reserved, size_t length);

/* The settings; those not set are the defaults: maximum threads and
 * available cores the cores of EBSP_MESH, one thread per core, none of
 * them unused. mcbsp_get_pinning and mcbsp_get_reserved_cores return a
 * malloc'ed copy for the caller to free (of the length given to the
 * setter), or NULL when there is none. */
size_t mcbsp_get_maximum_threads(void);
enum mcbsp_affinity_mode mcbsp_get_affinity_mode(void);
size_t mcbsp_get_available_cores(void);
size_t mcbsp_get_threads_per_core(void);
size_t mcbsp_get_unused_threads_per_core(void);
enum mcbsp_thread_numbering mcbsp_get_thread_numbering(void);
size_t *mcbsp_get_pinning(void);
size_t mcbsp_get_reserved_cores_number(void);
size_t *mcbsp_get_reserved_cores(void);

/* ---- the BSPlib names ---------------------------------------------------- */

#ifndef BSPLIB_NO_NAME_MAP
#define bsp_init bsplib_init
#define bsp_end bsplib_end
#define bsp_time bsplib_time
#define bsp_sync bsplib_sync
#define bsp_abort bsplib_abort
#define bsp_vabort bsplib_vabort
#define bsp_pop_reg bsplib_pop_reg
#ifdef MCBSP_COMPATIBILITY_MODE
#define bsp_begin bsplib_begin_int
#define bsp_nprocs bsplib_nprocs_int
#define bsp_pid bsplib_pid_int
#define bsp_push_reg bsplib_push_reg_int
#define bsp_put bsplib_put_int
#define bsp_get bsplib_get_int
#define bsp_hpput bsplib_hpput_int
#define bsp_hpget bsplib_hpget_int
#define bsp_direct_get bsplib_direct_get_int
#define bsp_set_tagsize bsplib_set_tagsize_int
#define bsp_send bsplib_send_int
#define bsp_hpsend bsplib_hpsend_int
#define bsp_qsize bsplib_qsize_int
#define bsp_get_tag bsplib_get_tag_int
#define bsp_move bsplib_move_int
#define bsp_hpmove bsplib_hpmove_int
#else
#define bsp_begin bsplib_begin
#define bsp_nprocs bsplib_nprocs
#define bsp_pid bsplib_pid
#define bsp_push_reg bsplib_push_reg
#define bsp_put bsplib_put
#define bsp_get bsplib_get
#define bsp_hpput bsplib_hpput
#define bsp_hpget bsplib_hpget
#define bsp_direct_get bsplib_direct_get
#define bsp_set_tagsize bsplib_set_tagsize
#define bsp_send bsplib_send
#define bsp_hpsend bsplib_hpsend
#define bsp_qsize bsplib_qsize
#define bsp_get_tag bsplib_get_tag
#define bsp_move bsplib_move
#define bsp_hpmove bsplib_hpmove
#endif
#endif

#ifdef __cplusplus
}
#endif

#endif
