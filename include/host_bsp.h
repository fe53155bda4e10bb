/*
 * host_bsp.h -- host side of libebsp, an emulator of the Epiphany BSP (EBSP)
 * platform for ordinary Linux machines.
 *
 * An EBSP program has two parts:
 *   - the host program (host_*.c), which includes this header, loads a
 *     kernel, starts it on the cores, feeds it data and collects results;
 *   - the kernel (e_*.c, with its own main), which includes e_bsp.h and runs
 *     once on every core of the (here emulated) Epiphany chip.
 * Both are compiled with the host's own gcc and linked against libebsp.
 *
 * The emulated machine
 *   - A mesh of 16 cores (4 rows x 4 columns) unless the environment
 *     variable EBSP_MESH=RxC (for example EBSP_MESH=8x8) asks for another
 *     shape; meshes of at least 32x32 cores are supported.
 *   - Every core has 32 KiB of local memory (offsets 0x0000-0x7fff for
 *     ebsp_write() and ebsp_read()); all cores share 32 MiB of external
 *     memory.  EBSP_LOCAL_MEM and EBSP_EXT_MEM set other sizes in bytes
 *     (e.g. EBSP_LOCAL_MEM=64K, EBSP_EXT_MEM=128M); EBSP_DMA_SYNC=1 makes
 *     the cores' DMA transfers complete before ebsp_dma_push() returns.
 *   - Each core runs on its own thread with its own instance of the kernel,
 *     so kernel globals are private to a core, as on the board.
 *
 * Building a kernel
 *   The kernel is a shared object made by the host gcc, under the file name
 *   the EBSP build would give it, for example
 *       gcc -std=gnu99 -funsigned-char -shared -fPIC -o e_hello.elf e_hello.c
 *   Build host and kernel with -funsigned-char (part of `pkg-config --cflags
 *   ebsp`): char is unsigned on the board's ARM host and Epiphany cores.
 *   bsp_init() then loads it by that name.  A kernel can instead be a
 *   function of the host process, see ebsp_register_kernel().
 *
 * Usual order of calls
 *   bsp_init() -> bsp_begin() -> [ebsp_set_tagsize, ebsp_send_down,
 *   bsp_stream_create, ebsp_write, callbacks] -> ebsp_spmd() -> [ebsp_qsize,
 *   ebsp_get_tag, ebsp_move, ebsp_read ...] -> bsp_end().
 *
 * Shared symbols: do not include e_bsp.h in the same translation unit.
 *   bsp_begin, bsp_end, bsp_nprocs and ebsp_get_tagsize exist on both sides
 *   (bsp_begin and bsp_end with different signatures here and in e_bsp.h).
 *   libebsp exports each of them once; the one symbol serves both sides and
 *   decides at run time by whether the calling thread is an emulated core.
 *   Because the two declarations of bsp_begin and bsp_end conflict, a single
 *   .c file must include either host_bsp.h or e_bsp.h, never both.
 *
 * Declarations: every EBSP function is declared exactly as EBSP 1.0 declares
 * it, including the empty parameter lists "()" of ebsp_spmd(), bsp_end(),
 * bsp_nprocs(), ebsp_get_tagsize() and of the callbacks' type void (*)().
 * Like EBSP's, this header includes <e-hal.h> (libebsp ships a small
 * stand-in) and host_bsp_deprecated.h, which holds the host half of the
 * deprecated stream API.
 *
 * Misuse of a kernel call that the library detects is printed, like
 * ebsp_message() output, as
 *   "$PP: BSP ERROR: <call>: <what> (superstep N)"
 * where PP is the core's pid; fatal misuse ends the run as bsp_abort()
 * would, and ebsp_spmd() then returns 0.
 */
#ifndef EBSP_HOST_BSP_H
#define EBSP_HOST_BSP_H

#include <stddef.h>
#include <sys/types.h>

#include <e-hal.h>
#include "host_bsp_deprecated.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Setting up and running                                                    */
/* ------------------------------------------------------------------------ */

/*
 * bsp_init -- prepare the BSP system and load a kernel.
 *
 * e_name  name of the kernel.  A name registered with
 *         ebsp_register_kernel() is used first.  Otherwise it is a file
 *         name (such as "e_hello.elf" or "e_hello.srec"); the file is looked
 *         for in the directory of the host executable, then in the current
 *         directory, then in each directory listed in the environment
 *         variable EBSP_KERNEL_PATH (separated by colons).
 *         The file must be a shared object built with gcc -shared -fPIC
 *         (not an Epiphany binary); each core later gets its own loaded
 *         instance of it, with its own copy of the globals.
 * argc, argv
 *         the host program's arguments; accepted for compatibility with
 *         EBSP and, as there, not passed on to the kernel.
 *
 * Returns 1 on success, 0 on failure: kernel not found or not loadable, or
 * bsp_init() already succeeded and bsp_end() has not been called since
 * (printed on stderr as on the board:
 * "ERROR: bsp_init called when already initialized.").
 *
 * Differences from the board: the board looks only in the executable's
 * directory and expects an Epiphany image; the emulator also searches the
 * current directory and EBSP_KERNEL_PATH, and loads a host shared object.
 */
int bsp_init(const char *e_name, int argc, char **argv);

/*
 * bsp_begin -- choose how many cores the kernel will run on.
 *
 * nprocs  number of cores to use, from 1 up to bsp_nprocs().  The cores get
 *         the pids 0 .. nprocs-1.
 *
 * Must follow a successful bsp_init(), once.  Returns 1 on success, 0 on
 * failure, printing the board's text on stderr:
 *   "ERROR: bsp_begin called twice or called before bsp_init" when there
 *   was no successful bsp_init(), or bsp_begin() or ebsp_spmd() came
 *   already;
 *   "ERROR: bsp_begin called with nprocs = N." when nprocs is out of range
 *   (bsp_begin() may then be called again).
 * Any nprocs in range is used as given, as EBSP 1.0 does (its
 * documentation speaks of rounding down to a multiple of 4; its code does
 * not round).
 *
 * The kernel's bsp_begin (e_bsp.h) is the same exported symbol; see the
 * note at the top of this file.
 */
int bsp_begin(int nprocs);

/*
 * ebsp_spmd -- run the kernel on the cores chosen with bsp_begin().
 *
 * Starts the kernel's main on every core and blocks until all of them have
 * returned.  Messages sent with ebsp_send_down() and streams created with
 * bsp_stream_create() beforehand are handed to the cores; messages the
 * cores send with ebsp_send_up() can be read afterwards with ebsp_qsize(),
 * ebsp_get_tag(), ebsp_move() and ebsp_hpmove().
 *
 * Returns 1 if the run completed normally, 0 if it failed: a core called
 * bsp_abort(), or the library stopped the run because of fatal misuse.
 * Before bsp_begin() it returns 0 and prints, as the board does,
 * "ERROR: ebsp_spmd called before bsp_begin".
 *
 * Difference from the board: EBSP 1.0 runs the kernel once per
 * bsp_begin(); a second ebsp_spmd() fails there.  libebsp allows any number
 * of runs between bsp_begin() and bsp_end() (each kernel must then return
 * from main right after its bsp_end()).
 */
int ebsp_spmd();

/*
 * bsp_end -- finish with the BSP system.
 *
 * Releases what bsp_init() and bsp_begin() set up: the kernel instances,
 * streams, message queues and emulated memories.  Pointers obtained from
 * bsp_stream_create(), ebsp_create_up_stream() or ebsp_hpmove() are invalid
 * afterwards.
 *
 * Returns 1 on success.  Calling it right after bsp_init(), without
 * bsp_begin(), is legal: it returns 1, prints nothing and forgets the
 * kernel.  Before a successful bsp_init() (or a second time) it returns 0
 * and prints, as the board does,
 * "ERROR: bsp_end called when bsp was not initialized.".
 *
 * The kernel's bsp_end (e_bsp.h, no result) is the same exported symbol;
 * see the note at the top of this file.
 */
int bsp_end();

/*
 * bsp_nprocs -- number of cores available.
 *
 * Returns the number of cores of the emulated mesh: 16 by default, or
 * rows*cols when EBSP_MESH=RxC is set.  Valid after bsp_init(): before it
 * and after bsp_end() it returns 0, as on the board.  This is an upper
 * bound for bsp_begin(), not the number chosen there.
 *
 * Inside a kernel the same symbol returns the number of cores of the run
 * (see e_bsp.h).
 */
int bsp_nprocs();

/* ------------------------------------------------------------------------ */
/* Messages between host and cores                                           */
/* ------------------------------------------------------------------------ */

/*
 * ebsp_set_tagsize -- set the tag size for messages sent down.
 *
 * tag_bytes  points to the new tag size in bytes; on return it holds the
 *            previous one.
 *
 * The tag size starts at 0.  Set it at most once, before ebsp_spmd() and
 * before the first ebsp_send_down(); all messages of a run share one tag
 * size.  The cores start with this tag size for their own messages as well.
 * Changing it after messages have been sent down is undefined.
 */
void ebsp_set_tagsize(int *tag_bytes);

/*
 * ebsp_send_down -- queue a message for a core.
 *
 * pid      the receiving core (0 .. the nprocs given to bsp_begin() - 1).
 * tag      points to the tag, whose size is the one set with
 *          ebsp_set_tagsize() (ignored when that size is 0).
 * payload  points to nbytes bytes of data.
 * nbytes   size of the payload in bytes (may be 0).
 *
 * Call between bsp_begin() and ebsp_spmd().  Tag and payload are copied, so
 * the buffers may be reused at once.  The core finds the message in its
 * queue from its bsp_begin() until its first bsp_sync(); this is the
 * simplest way to hand initial data to the cores.  Messages go to the next
 * ebsp_spmd() only; send them again before another run.  A pid that does
 * not exist is reported on stderr and the message dropped.
 */
void ebsp_send_down(int pid, const void *tag, const void *payload, int nbytes);

/*
 * ebsp_get_tagsize -- tag size of the messages the cores sent up.
 *
 * Returns the tag size in bytes that was in force on the cores when
 * ebsp_spmd() returned.  The kernel may have changed it from the value set
 * with ebsp_set_tagsize(); use this to size the buffers for ebsp_get_tag().
 *
 * Inside a kernel the same symbol returns the core's current tag size (see
 * e_bsp.h).
 */
int ebsp_get_tagsize();

/*
 * ebsp_qsize -- count the messages the cores sent up.
 *
 * packets      receives the number of messages still in the host's queue.
 * accum_bytes  receives the sum of their payload sizes in bytes.
 *
 * Use after ebsp_spmd() to collect the results sent with ebsp_send_up().
 */
void ebsp_qsize(int *packets, int *accum_bytes);

/*
 * ebsp_get_tag -- look at the next message sent up, without removing it.
 *
 * status  receives the payload size in bytes of the next message, or -1
 *         when the queue is empty.
 * tag     receives the message's tag; must have room for ebsp_get_tagsize()
 *         bytes.  Left unchanged when the queue is empty.
 *
 * Use after ebsp_spmd().
 */
void ebsp_get_tag(int *status, void *tag);

/*
 * ebsp_move -- take the next message sent up off the queue, copying it.
 *
 * payload      receives the message's payload.
 * buffer_size  room in payload in bytes; a longer payload is cut short to
 *              this size (the rest is lost).
 *
 * Removes the message from the queue; does nothing when the queue is
 * empty.  Use ebsp_get_tag() first to learn the tag and the payload size.
 * Use after ebsp_spmd().
 */
void ebsp_move(void *payload, int buffer_size);

/*
 * ebsp_hpmove -- take the next message sent up off the queue, without
 * copying it.
 *
 * tag_ptr_buf      receives a pointer to the message's tag.
 * payload_ptr_buf  receives a pointer to the message's payload.
 *
 * Returns the payload size in bytes, or -1 when the queue is empty (the
 * pointers are then left unchanged).  The pointed-to data belongs to the
 * library and stays valid until the next ebsp_spmd() or bsp_end().
 * Use after ebsp_spmd().
 */
int ebsp_hpmove(void **tag_ptr_buf, void **payload_ptr_buf);

/* ------------------------------------------------------------------------ */
/* Streams                                                                   */
/* ------------------------------------------------------------------------ */

/*
 * bsp_stream_create -- make a stream of tokens in external memory.
 *
 * stream_size   total number of data bytes in the stream.  For a stream
 *               without initial data it is the room the cores may fill.
 * token_size    size in bytes of one token (the last token may be smaller
 *               when stream_size is not a multiple of it).  At least 16.
 * initial_data  stream_size bytes to put in the stream, or NULL for an
 *               empty stream that cores will fill with bsp_stream_move_up().
 *               The data is copied; the caller may free it afterwards.
 *
 * These streams are numbered in the order they are created, from 0, apart
 * from the deprecated streams (host_bsp_deprecated.h); any core opens them
 * by that number with bsp_stream_open().  Call before ebsp_spmd().
 *
 * Returns a pointer to the stream's area in the emulated external memory,
 * or NULL on failure.  Failures the board reported print its line on
 * stdout: "ERROR: minimum token size is 16 bytes", "ERROR: Reached limit of
 * 1000 streams.", "ERROR: not enough memory in extmem for
 * ebsp_stream_create"; others (a negative size, called during ebsp_spmd())
 * print "ebsp: ERROR: ..." on stderr.  The area is a chain of headers and
 * tokens: before every token, and once after the last one, a header of two
 * ints, the size of the token before it (0 at the start) and the size of
 * the token after it (0 at the end); with initial_data of no bytes the one
 * header is (token_size, 0), as on the board.  The sizes count data bytes
 * only.  Tokens the cores move up are rounded up to a multiple of 8 bytes.
 * After ebsp_spmd() the host walks this chain to read what the cores
 * wrote.  The area stays valid until bsp_end().
 */
void *bsp_stream_create(int stream_size, int token_size, const void *initial_data);

/* ------------------------------------------------------------------------ */
/* Direct access to the cores' memory                                        */
/* ------------------------------------------------------------------------ */

/*
 * ebsp_write -- copy host data into a core's memory.
 *
 * pid   the target core.
 * src   size bytes of host data to copy (not modified).
 * dst   the destination as the core sees it: a value below the local memory
 *       size (0x8000 unless the emulator is configured with a larger local
 *       memory) is an offset into the core's emulated local memory, the
 *       memory ebsp_malloc() hands out; any other value is taken as a
 *       pointer that the core passed to the host (for example in a message
 *       sent with ebsp_send_up()).
 * size  number of bytes to copy.
 *
 * Returns 1 on success, 0 on failure, printing "ebsp: ERROR: ..." on
 * stderr: a bad pid, a range running past the end of the local memory,
 * an offset from the local memory size up to 1 MiB (a core's address
 * space on the Epiphany; no host pointer lies that low), or memory on
 * either side that cannot be read or written (nothing is copied then).
 * Can be used after bsp_begin(): before ebsp_spmd(), after it, and from
 * the callback set with ebsp_set_sync_callback().  The local memory keeps
 * its bytes between runs until bsp_end().
 *
 * Pointers: a pointer into this core's local memory (a block from
 * ebsp_malloc()) or into external memory must lie wholly inside it; a
 * pointer into another core's local memory is refused (the pid is wrong).
 * Any other pointer is accepted as host memory, where kernel globals and
 * stacks live in the emulator, so a kernel may hand up the address of a
 * global; the library checks only that the memory is there.
 *
 * Difference from the board: kernel code, globals and stack do not live in
 * the emulated local memory, so addresses of kernel variables must not be
 * hard-coded; pass them up from the core instead, or have the kernel use
 * ebsp_local_address(offset) for the offsets the host writes to.
 */
int ebsp_write(int pid, void *src, off_t dst, int size);

/*
 * ebsp_read -- copy data from a core's memory to the host.
 *
 * pid   the source core.
 * src   the source as the core sees it, interpreted as for ebsp_write():
 *       an offset into local memory when below the local memory size, a
 *       pointer handed up by the core otherwise.
 * dst   host buffer receiving size bytes.
 * size  number of bytes to copy.
 *
 * Returns 1 on success, 0 on failure (bad pid or out-of-range address,
 * checked as for ebsp_write()).  Can be used at the same times as
 * ebsp_write().
 */
int ebsp_read(int pid, off_t src, void *dst, int size);

/* ------------------------------------------------------------------------ */
/* Callbacks                                                                 */
/* ------------------------------------------------------------------------ */

/*
 * ebsp_set_sync_callback -- set the function run at each host sync.
 *
 * cb  function to call, or NULL for none.
 *
 * During ebsp_spmd(), each time every core of the run has entered
 * ebsp_host_sync(), cb is called once; the cores continue when it returns.
 * It may use ebsp_read() and ebsp_write() to exchange data with the cores.
 * bsp_sync() on the cores does not call it.  ebsp_spmd() and bsp_end()
 * called from it fail ("ebsp: ERROR: ebsp_spmd: a run is already in
 * progress", "... bsp_end: called during a run") and return 0.
 */
void ebsp_set_sync_callback(void (*cb)());

/*
 * ebsp_set_end_callback -- set the function run when a run ends.
 *
 * cb  function to call, or NULL for none.
 *
 * cb is called once at the end of each ebsp_spmd(), after all cores have
 * finished and before ebsp_spmd() returns.  Meant for tools built on top
 * of the library; ordinary programs do not need it.  As the run's
 * ebsp_spmd() has not returned, ebsp_spmd() and bsp_end() called from cb
 * fail as from the sync callback.
 */
void ebsp_set_end_callback(void (*cb)());

/* ------------------------------------------------------------------------ */
/* Extension: kernels that live in the host process                          */
/* ------------------------------------------------------------------------ */

/*
 * ebsp_register_kernel -- make a function of the host process available as
 * a kernel (libebsp extension, not in EBSP).
 *
 * name    the name bsp_init() will accept for this kernel.  Registered
 *         names are looked up before any file.
 * kernel  the kernel's "main": it runs on every core, calls bsp_begin() and
 *         bsp_end() like any kernel, and its result is ignored like that of
 *         a kernel's main.  NULL removes the registration of name.
 *
 * Registering a name again replaces the earlier function.
 * Returns 1 on success, 0 on failure: name is NULL, or kernel is NULL and
 * name was not registered (nothing to remove), or kernel is a number below
 * 4096 such as (void *)0x10, never a function (a line on stderr says so).
 *
 * Unlike a kernel loaded from a file, a registered kernel is not loaded
 * once per core: all cores share its globals and statics.  Keep per-core
 * state in local variables (or index shared arrays by bsp_pid()).  Write
 * the kernel in a translation unit of its own that includes e_bsp.h, since
 * host_bsp.h and e_bsp.h cannot be included together.
 */
int ebsp_register_kernel(const char *name, int (*kernel)(void));

#ifdef __cplusplus
}
#endif

#endif /* EBSP_HOST_BSP_H */
