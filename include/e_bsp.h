/*
 * e_bsp.h -- kernel side of libebsp, an emulator of the Epiphany BSP (EBSP)
 * platform for ordinary Linux machines.
 *
 * A kernel (e_*.c) is the program every core runs.  It has its own main,
 * which calls bsp_begin() first and bsp_end() last, and in between works in
 * supersteps separated by bsp_sync().  On the board it runs on Epiphany
 * cores; with libebsp it is compiled by the host gcc as a shared object
 *     gcc -std=gnu99 -funsigned-char -shared -fPIC -o e_hello.elf e_hello.c
 * (-funsigned-char because char is unsigned on the Epiphany; the flags of
 * `pkg-config --cflags ebsp` include it)
 * and the host program (see host_bsp.h) starts it on every emulated core.
 * Each core runs the kernel on a thread of its own with its own loaded
 * instance, so globals and statics are private to the core, as on the
 * board.  (Kernels registered with ebsp_register_kernel() are the exception:
 * their globals are shared by all cores.)
 *
 * The emulated machine: 16 cores (a 4x4 mesh) unless EBSP_MESH=RxC selects
 * another shape (at least up to 32x32); 32 KiB of local memory per core
 * (EBSP_LOCAL_MEM changes it); 32 MiB of external memory shared by all
 * cores (EBSP_EXT_MEM changes it); one DMA engine per core (EBSP_DMA_SYNC=1
 * makes its transfers synchronous); a 600 MHz core clock.
 *
 * Differences from the board are stated with each call.  The main ones:
 *   - kernel code, globals and stack live in host memory, not in the core's
 *     32 KiB, so all of it is free for ebsp_malloc() and stream buffers;
 *   - bsp_get() follows the BSPlib rule (all gets of a superstep are served
 *     before any put of that superstep is applied);
 *   - no fixed limit on the number of registered variables;
 *   - a DMA transfer takes the time it took on the board, and its bytes
 *     land when the core waits for it or synchronises (see ebsp_dma_push()).
 *
 * Errors, by check level (EBSP_CHECKS; docs/errors.md lists every message):
 *   - board (the default): a program prints what it printed on the board,
 *     the board's own lines included ("$PP: BSP ERROR: could not find bsp
 *     var 0x..."), and libebsp adds its own diagnostics only where the board
 *     would have crashed or hung (a pid out of range, a negative size, a
 *     NULL pointer, a core ending while others wait in a sync ...) and at
 *     the few places where it cannot follow the board (a negative offset,
 *     ebsp_send_up() before the final sync, a stream handle used after its
 *     close);
 *   - strict: also every misuse of the documented rules that the board let
 *     pass (marked "EBSP_CHECKS=strict" below): registrations used before
 *     they take effect, puts and gets past the registered size, different
 *     tag sizes, ebsp_free() of what is not a block ...;
 *   - 0: as board, without the checks that cost time on every request (NULL
 *     buffers and tags).
 * libebsp's diagnostics read
 *     "$PP: BSP ERROR: <call>: <what> (superstep N)"
 * with PP the core's pid.  Fatal misuse stops all cores as bsp_abort() does.
 * EBSP_COMM_LIMIT_MB bounds what one core may queue for others in one
 * superstep (default 1024 MiB); going beyond it is a BSP ERROR.
 *
 * Shared symbols: do not include host_bsp.h in the same translation unit.
 *   bsp_begin, bsp_end, bsp_nprocs and ebsp_get_tagsize exist on both sides
 *   (bsp_begin and bsp_end with different signatures here and in
 *   host_bsp.h).  libebsp exports each of them once; the one symbol serves
 *   both sides and decides at run time by whether the calling thread is an
 *   emulated core.  Because the two declarations of bsp_begin and bsp_end
 *   conflict, a single .c file must include either e_bsp.h or host_bsp.h,
 *   never both.
 *
 * Declarations: every EBSP function is declared exactly as EBSP 1.0 declares
 * it, including the empty parameter lists "()" of the calls without
 * parameters (bsp_begin(), bsp_sync(), ebsp_get_tagsize() ...).  In C before
 * C23 such a declaration does not check the arguments of a call, so code
 * that compiled on the board (say, bsp_begin(16) in a kernel) compiles here
 * too; the arguments are ignored.  The calls of EBSP's deprecated stream API
 * are in e_bsp_deprecated.h, which this header includes.
 */
#ifndef EBSP_E_BSP_H
#define EBSP_E_BSP_H

#include <limits.h> /* INT_MIN and INT_MAX, for bsp_stream_seek() */
#include <stddef.h>

#include "e_bsp_datatypes.h"
#include "e_bsp_deprecated.h"

#ifdef __cplusplus
extern "C" {
#endif

/* printf-style argument checking where the compiler supports it. */
#ifndef EBSP_PRINTF_LIKE
#ifdef __GNUC__
#define EBSP_PRINTF_LIKE(fmt, first) __attribute__((format(printf, fmt, first)))
#else
#define EBSP_PRINTF_LIKE(fmt, first)
#endif
#endif

/* ------------------------------------------------------------------------ */
/* Starting, stopping and identity                                           */
/* ------------------------------------------------------------------------ */

/*
 * bsp_begin -- start BSP on this core.
 *
 * Must be the first BSP call of the kernel, and made only once per run.
 * Starts the core's clock for bsp_time() and ebsp_host_time(); the messages
 * the host sent with ebsp_send_down() are in the queue from here until the
 * first bsp_sync().
 *
 * Shares its exported symbol with the host's int bsp_begin(int); see the
 * note at the top of this file.
 */
void bsp_begin();

/*
 * bsp_end -- finish BSP on this core.
 *
 * No BSP call may follow.  Every core of the run must reach bsp_end() in the
 * same superstep; a core that ends while others wait in bsp_sync(), or
 * every core returning from main without bsp_end() (the board's host waited
 * for ever), is reported as a deadlock and the run is stopped.  Return from
 * main right after it; the core's run is over when main returns (the host
 * may then start the kernel again with another ebsp_spmd()).
 *
 * Shares its exported symbol with the host's int bsp_end(); see the note
 * at the top of this file.
 */
void bsp_end();

/*
 * bsp_nprocs -- number of cores taking part in this run.
 *
 * Returns the nprocs the host passed to bsp_begin(): any number from 1 up
 * to the size of the mesh, as on the board.
 */
int bsp_nprocs();

/*
 * bsp_pid -- this core's processor id.
 *
 * Returns a number from 0 to bsp_nprocs() - 1, different on every core.
 */
int bsp_pid();

/* ------------------------------------------------------------------------ */
/* Time                                                                      */
/* ------------------------------------------------------------------------ */

/*
 * bsp_time -- seconds elapsed since this core called bsp_begin().
 *
 * Returns the elapsed time in seconds.
 *
 * Difference from the board: the board derives this from a 32-bit cycle
 * counter, so it is only good for about 7 seconds, and it shares that
 * counter with ebsp_raw_time(), so the two must not be mixed.  The emulator
 * has neither restriction.
 */
float bsp_time();

/*
 * ebsp_host_time -- seconds elapsed since bsp_begin(), by the host's clock.
 *
 * Returns the elapsed time in seconds.  On the board this asks the host and
 * is only accurate to milliseconds, but works for long intervals; in the
 * emulator it reads the same clock as bsp_time() and is just as precise.
 */
float ebsp_host_time();

/*
 * ebsp_raw_time -- clock cycles since the previous call.
 *
 * Returns the number of cycles of the 600 MHz core clock that passed since
 * this core last called ebsp_raw_time() (since bsp_begin() for the first
 * call).  Divide by 600000000 to get seconds.  The count is 32 bits wide
 * and wraps after about 7.16 seconds.  Cheaper than bsp_time().
 */
unsigned int ebsp_raw_time();

/* ------------------------------------------------------------------------ */
/* Synchronisation                                                           */
/* ------------------------------------------------------------------------ */

/*
 * bsp_sync -- end the current superstep.
 *
 * Waits until every core of the run has called bsp_sync(), then completes
 * the superstep's work: registrations and deregistrations take effect,
 * buffered gets are served and then buffered puts are applied, messages
 * sent with bsp_send() are delivered (the previous queue is discarded), and
 * a new tag size set with bsp_set_tagsize() comes into force.  Returns when
 * all of this is done on every core.
 */
void bsp_sync();

/*
 * ebsp_barrier -- wait for all cores without ending the superstep.
 *
 * Returns once every core of the run has called ebsp_barrier().
 * Outstanding puts, gets, messages and registrations are left alone; this
 * is the cheap way to order unbuffered (bsp_hpput/bsp_hpget) communication.
 */
void ebsp_barrier();

/*
 * ebsp_host_sync -- meet the host.
 *
 * Every core of the run must call it the same number of times.  When all
 * cores are in ebsp_host_sync(), the host's callback (set with
 * ebsp_set_sync_callback()) runs once; then all cores continue.  Without a
 * callback it acts as a plain barrier.  It does not end the superstep.
 */
void ebsp_host_sync();

/* ------------------------------------------------------------------------ */
/* Registered variables (DRMA)                                               */
/* ------------------------------------------------------------------------ */

/*
 * bsp_push_reg -- make a variable available for remote access.
 *
 * variable  address of the local variable (or array).
 * nbytes    its size in bytes on this core; it may differ between cores.
 *
 * By default (the board's EBSP 1.0) the registration takes effect at once
 * in this core's own table, in its lowest free slot, and slot k of every
 * core is one variable: every core registers the same variables in the
 * same order.  Several registrations per superstep are fine and nbytes is
 * ignored (so puts and gets are not checked against it).  A request that
 * needs slot k of a core that has not filled it yet waits until that core
 * does, or is reported (a BSP ERROR) once that core waits in a
 * synchronisation without having filled it.
 *
 * Under EBSP_CHECKS=strict, EBSP's documented rules: it takes effect at the
 * next bsp_sync(); every core registers in the same superstep, one
 * registration per superstep, and a core's k-th registration of a
 * superstep belongs with the k-th registration of every other core; puts
 * and gets are checked against the nbytes of the target core; a negative
 * nbytes is a BSP ERROR.
 *
 * Registering an address that is already registered adds a registration
 * (a request then uses the lowest slot holding it by default, the newest
 * registration under strict).  There is no fixed limit on registrations
 * (the board had 20).
 */
void bsp_push_reg(const void *variable, const int nbytes);

/*
 * bsp_pop_reg -- withdraw a registration.
 *
 * variable  an address registered earlier with bsp_push_reg().
 *
 * By default (the board's model) it empties every slot holding the address
 * at once for this core's own requests, while other cores still reach it
 * until the next bsp_sync(); an address that is not registered is ignored.
 * Under EBSP_CHECKS=strict it withdraws the newest registration of the
 * address at the next bsp_sync(); every core pops the same registration in
 * the same superstep (the order of pops does not matter), and popping an
 * address that is not registered is a BSP ERROR.
 */
void bsp_pop_reg(const void *variable);

/*
 * bsp_put -- buffered write into a registered variable of a core.
 *
 * pid     the target core (may be this core).
 * src     nbytes bytes of local data; copied at the time of the call, so the
 *         buffer may be reused at once.
 * dst     the local address of a registered variable; the data goes to the
 *         target core's copy of it.
 * offset  byte offset within the target variable.
 * nbytes  number of bytes to write.
 *
 * The write is carried out during the next bsp_sync(), after all gets of
 * the superstep have been served.
 *
 * Checks.  A pid out of range, a negative offset or nbytes, or (not under
 * EBSP_CHECKS=0) a NULL src with nbytes > 0 is a BSP ERROR at every level.
 * A dst this core has not registered prints the board's line "BSP ERROR:
 * could not find bsp var 0x..." and the call does nothing, by default; it
 * is a BSP ERROR under EBSP_CHECKS=strict.  Writing past the nbytes the
 * target registered is a BSP ERROR under EBSP_CHECKS=strict only: by
 * default the bytes land past the variable, in whatever follows it, as on
 * the board.
 */
void bsp_put(int pid, const void *src, void *dst, int offset, int nbytes);

/*
 * bsp_hpput -- unbuffered write into a registered variable of a core.
 *
 * Parameters as for bsp_put().  The data is written into the target's
 * variable straight away, without a copy in between: the programmer must
 * make sure the target is not using that memory meanwhile (e.g. with
 * ebsp_barrier()).  The transfer is only guaranteed complete after the next
 * bsp_sync() (in the emulator it is done when the call returns, but do not
 * rely on that).  Checked as bsp_put() is.
 */
void bsp_hpput(int pid, const void *src, void *dst, int offset, int nbytes);

/*
 * bsp_get -- buffered read from a registered variable of a core.
 *
 * pid     the core to read from (may be this core).
 * src     the local address of a registered variable; the data comes from
 *         the source core's copy of it.
 * offset  byte offset within the source variable.
 * dst     local buffer receiving nbytes bytes.
 * nbytes  number of bytes to read.
 *
 * Nothing happens until the next bsp_sync().  There, every get of the
 * superstep reads its source before any put of that superstep is applied,
 * so values can be swapped with gets.  Checked as bsp_put() is (src in the
 * place of dst, dst in the place of src): reading past the source's
 * registered size is a BSP ERROR under EBSP_CHECKS=strict only.
 *
 * Difference from the board: EBSP on the Parallella does not keep the
 * BSPlib order (gets and puts may interleave); the emulator does.
 */
void bsp_get(int pid, const void *src, int offset, void *dst, int nbytes);

/*
 * bsp_hpget -- unbuffered read from a registered variable of a core.
 *
 * Parameters as for bsp_get().  The data is read straight away, so the
 * source must already hold the wanted values and must not be changing (use
 * ebsp_barrier() to order this).  Completion is only guaranteed after the
 * next bsp_sync() (in the emulator it is done when the call returns).
 * Checked as bsp_get() is.
 */
void bsp_hpget(int pid, const void *src, int offset, void *dst, int nbytes);

/*
 * bsp_direct_get -- blocking read from a registered variable of a core
 * (libebsp extension, after MulticoreBSP's bsp_direct_get).
 *
 * Parameters as for bsp_get().  The read is carried out at once: when the
 * call returns, dst holds the data.  As with bsp_hpget(), the caller must
 * make sure the source is not being changed at the same time.  Checked as
 * bsp_get() is.
 */
void bsp_direct_get(int pid, const void *src, int offset, void *dst, int nbytes);

/*
 * ebsp_get_direct_address -- address of another core's copy of a
 * registered variable.
 *
 * pid       the core whose copy is wanted (may be this core).
 * variable  the local address of a registered variable.
 *
 * Returns a pointer through which this core can read and write the other
 * core's copy directly, or pass it to ebsp_dma_push(); NULL when variable
 * is not registered (by default printing the board's line "BSP ERROR:
 * could not find bsp var 0x...").  A pid out of range, or a core that has
 * not registered its copy, is a BSP ERROR.  Accesses through it are
 * unbuffered, with the same cautions as bsp_hpput()/bsp_hpget().
 */
void *ebsp_get_direct_address(int pid, const void *variable);

/* ------------------------------------------------------------------------ */
/* Messages (BSMP)                                                           */
/* ------------------------------------------------------------------------ */

/*
 * bsp_set_tagsize -- change the tag size of messages.
 *
 * tag_bytes  points to the new tag size in bytes; on return it holds the
 *            old one.
 *
 * The new size applies from the next superstep: messages sent in this
 * superstep still use the old size.  All cores must set the same size in
 * the same superstep; EBSP_CHECKS=strict reports cores that do not, while
 * by default each core keeps the size it set, as on the board.  The initial
 * size is the one the host set with ebsp_set_tagsize() (0 if it set none).
 * A negative size is a BSP ERROR at every level.
 */
void bsp_set_tagsize(int *tag_bytes);

/*
 * ebsp_get_tagsize -- the tag size now in use.
 *
 * Returns the tag size in bytes of this superstep's messages, both those
 * sent and those in the queue.  It stays valid until the next bsp_sync().
 *
 * Shares its exported symbol with the host's ebsp_get_tagsize(); see the
 * note at the top of this file.
 */
int ebsp_get_tagsize();

/*
 * bsp_send -- send a message to a core.
 *
 * pid      the receiving core (may be this core).
 * tag      points to ebsp_get_tagsize() bytes of tag.
 * payload  points to nbytes bytes of data.
 * nbytes   size of the payload in bytes; may differ from message to message.
 *
 * Tag and payload are copied before the call returns.  The message arrives
 * in the receiver's queue at the next bsp_sync().  A pid out of range or a
 * negative nbytes is a BSP ERROR; so is (not under EBSP_CHECKS=0) a NULL
 * tag with a tag size above 0 or a NULL payload with nbytes above 0.
 */
void bsp_send(int pid, const void *tag, const void *payload, int nbytes);

/*
 * bsp_qsize -- size of this core's message queue.
 *
 * packets      receives the number of messages still in the queue.
 * accum_bytes  receives the sum of their payload sizes in bytes.
 */
void bsp_qsize(int *packets, int *accum_bytes);

/*
 * bsp_get_tag -- look at the next message without removing it.
 *
 * status  receives the payload size in bytes of the next message, or -1
 *         when the queue is empty.
 * tag     receives the message's tag; must have room for
 *         ebsp_get_tagsize() bytes.  Left unchanged when the queue is empty.
 *
 * A message keeps the tag size it was sent with.  After a tag size change
 * the queue holds messages with the old size: at most ebsp_get_tagsize()
 * bytes of their tag are copied (bytes beyond the message's own tag are
 * left unchanged).
 */
void bsp_get_tag(int *status, void *tag);

/*
 * bsp_move -- take the next message off the queue, copying its payload.
 *
 * payload      receives the payload.
 * buffer_size  room in payload in bytes; a longer payload is cut short to
 *              this size (the rest is lost).
 *
 * The message is removed from the queue.  Does nothing when the queue is
 * empty.
 */
void bsp_move(void *payload, int buffer_size);

/*
 * bsp_hpmove -- take the next message off the queue without copying it.
 *
 * tag_ptr_buf      receives a pointer to the message's tag.
 * payload_ptr_buf  receives a pointer to the message's payload.
 *
 * Returns the payload size in bytes, or -1 when the queue is empty (the
 * pointers are then left unchanged).  The message is removed from the
 * queue; the pointed-to data stays valid until the next bsp_sync().  On the
 * board this data may lie in slow external memory.
 */
int bsp_hpmove(void **tag_ptr_buf, void **payload_ptr_buf);

/*
 * ebsp_send_up -- send a message to the host.
 *
 * tag      points to ebsp_get_tagsize() bytes of tag.
 * payload  points to nbytes bytes of data.
 * nbytes   size of the payload in bytes.
 *
 * Tag and payload are copied.  The host reads these messages after
 * ebsp_spmd() returns, with ebsp_qsize(), ebsp_get_tag(), ebsp_move() and
 * ebsp_hpmove().  As in EBSP, use it only in the last superstep, after the
 * final bsp_sync() and before bsp_end(): a call before a bsp_sync() is a
 * BSP ERROR at every level (the board lost such messages).
 */
void ebsp_send_up(const void *tag, const void *payload, int nbytes);

/* ------------------------------------------------------------------------ */
/* Output and aborting                                                       */
/* ------------------------------------------------------------------------ */

/*
 * ebsp_message -- print a line on the host's standard output.
 *
 * format, ...  as for printf.
 *
 * Prints "$PP: " (PP being this core's pid with at least two digits, e.g.
 * "$07: "), the formatted text and a newline, as one line that does not mix
 * with other cores' output.  The emulator prints through the C library's
 * stdio, so lines interleave with the host's own printf output in order.
 * Unlike on the board, floating-point conversions are safe to use.
 */
void ebsp_message(const char *format, ...) EBSP_PRINTF_LIKE(1, 2);

/*
 * bsp_abort -- stop the whole run with an error.
 *
 * format, ...  as for printf: the reason, printed like ebsp_message() does
 *              ("$PP: text").
 *
 * Does not return.  All other cores are stopped too (each at its next BSP
 * call, or when it is waiting in one), and the host's ebsp_spmd() returns 0.
 */
void bsp_abort(const char *format, ...) EBSP_PRINTF_LIKE(1, 2);

/* ------------------------------------------------------------------------ */
/* Memory                                                                    */
/* ------------------------------------------------------------------------ */

/*
 * ebsp_malloc -- allocate from this core's local memory.
 *
 * nbytes  number of bytes wanted.
 *
 * Returns a pointer to the block (aligned to 8 bytes), or NULL when it
 * does not fit.  The block comes from the core's emulated local memory:
 * 32 KiB (0x8000 bytes) unless the environment variable EBSP_LOCAL_MEM sets
 * another size (e.g. EBSP_LOCAL_MEM=64K or 0x10000; 4 KiB to 1 MiB).  The
 * token buffers of open streams come from the same memory.  Free it with
 * ebsp_free().
 *
 * Difference from the board: the kernel's code, globals and stack live in
 * host memory and do not take room in the emulated local memory, so all of
 * it is free for ebsp_malloc() and stream buffers (a 0x8000-byte request
 * succeeds on an empty local memory, 0x9000 bytes never do).
 *
 * Each ebsp_spmd() starts with the whole local memory free: blocks do not
 * outlive a run (on the board, starting a kernel resets local memory too).
 * The bytes themselves are kept, so data the host wrote with ebsp_write()
 * before the run is there for the kernel.  A block's offset in local
 * memory (its address minus ebsp_local_address(0)) is what the host passes
 * to ebsp_write() and ebsp_read() to reach it.
 */
void *ebsp_malloc(unsigned int nbytes);

/*
 * ebsp_local_address -- pointer to a place in this core's local memory
 * (libebsp extension).
 *
 * offset  byte offset into the core's local memory, below its size
 *         (0x8000 by default).
 *
 * Returns the address of that byte, or NULL when offset is out of range.
 * EBSP programs that use fixed local addresses (for example
 * "int *data = (int *)0x5000;", where the host writes with
 * ebsp_write(pid, src, 0x5000, size)) are adapted with one line:
 *     int *data = ebsp_local_address(0x5000);
 * The memory is not reserved: ebsp_malloc() and stream buffers may hand out
 * the same bytes (they allocate from offset 0 upwards), so keep fixed
 * offsets clear of what the kernel allocates, as on the board.
 */
void *ebsp_local_address(unsigned int offset);

/*
 * ebsp_ext_malloc -- allocate from the external memory.
 *
 * nbytes  number of bytes wanted.
 *
 * Returns a pointer to the block (aligned to 8 bytes), or NULL when it
 * does not fit.  The block comes from the emulated external memory shared
 * by all cores and the host (32 MiB unless EBSP_EXT_MEM sets another size,
 * e.g. EBSP_EXT_MEM=64M; 64 KiB to 1 GiB), which also holds the streams.
 * Any core can access it; free it with ebsp_free().  Blocks last until the
 * host's bsp_end(), across runs.
 */
void *ebsp_ext_malloc(unsigned int nbytes);

/*
 * ebsp_free -- free a block from ebsp_malloc() or ebsp_ext_malloc().
 *
 * ptr  the block; must not be NULL and must not have been freed already.
 *
 * Tells local from external memory by the address.  A NULL pointer or
 * another core's local memory is reported as a BSP ERROR and the call does
 * nothing.  A pointer that is not a block (inside one, or freed already, or
 * in neither memory) is reported under EBSP_CHECKS=strict only; by default
 * the call does nothing, silently, as the board printed nothing.  The run
 * goes on in every case.
 */
void ebsp_free(void *ptr);

/*
 * ebsp_memcpy -- copy memory.
 *
 * dst     where to copy to.
 * src     where to copy from; must not overlap dst.
 * nbytes  number of bytes to copy.
 *
 * Same effect as memcpy().  On the board it is the faster choice for
 * Epiphany code; in the emulator the two are equivalent.
 */
void ebsp_memcpy(void *dst, const void *src, size_t nbytes);

/*
 * ebsp_dma_push -- queue a copy on this core's DMA engine.
 *
 * desc    handle describing the transfer, filled in by the call; it must
 *         stay valid until ebsp_dma_wait(desc) has returned.
 * dst     where to copy to.
 * src     where to copy from.
 * nbytes  number of bytes to copy.
 *
 * Returns at once; the core goes on while the transfer takes the time it
 * takes on the board.  The transfers a core pushes complete one after
 * another in the order pushed.  Neither buffer may be touched until the
 * transfer has been waited for.  Addresses from ebsp_get_direct_address()
 * let the DMA write to or read from other cores.  A zero-byte push leaves
 * desc as it was.  A bad transfer is a BSP ERROR that stops the run (at
 * every check level): a NULL or unreadable src, a NULL or unwritable dst,
 * or either running past the end of the local or external memory it
 * starts in; also a buffer that can no longer be read or written when the
 * transfer is copied.
 *
 * Differences from the board: the bytes are copied when the transfer is
 * waited for (or the core synchronises), never before its time on the
 * board, so a destination read before ebsp_dma_wait() holds its old bytes
 * every time; EBSP_DMA_SYNC=1 in the environment copies inside
 * ebsp_dma_push(), for debugging.  There is no restriction against copying
 * from a core's local memory to the same core.
 */
void ebsp_dma_push(ebsp_dma_handle *desc, void *dst, const void *src, size_t nbytes);

/*
 * ebsp_dma_wait -- wait for a queued DMA copy to finish.
 *
 * desc  a handle filled in by ebsp_dma_push().
 *
 * Returns when that transfer is complete (at once if it already is, or if
 * the handle describes no transfer).  Since a core's transfers complete in
 * order, all transfers pushed before it are then complete too.
 */
void ebsp_dma_wait(ebsp_dma_handle *desc);

/* ------------------------------------------------------------------------ */
/* Streams                                                                   */
/*                                                                           */
/* A stream lives in external memory (see bsp_stream_create() in            */
/* host_bsp.h) as a chain of tokens, each after a header of two ints: the   */
/* size of the token before it and of the token after it.  An open stream   */
/* has a cursor, the header before the next token.  Moves down, moves up    */
/* and seeks may come in any order: a move down reads the token at the      */
/* cursor, a move up writes one there and ends the stream after it, a seek  */
/* walks the cursor over headers.  Streams stay until the host's            */
/* bsp_end(); one left open when a run ends is free again in the next run.  */
/*                                                                           */
/* The library behaves as EBSP's did on the board, texts included: misuse   */
/* the board reported prints its line ("$PP: BSP ERROR: stream does not    */
/* exist", ...) and the call returns 0.  What the board did not survive     */
/* (a NULL handle or one that is not open, a negative token size, NULL      */
/* data) prints "$PP: BSP ERROR: <call>: <what> (superstep N)" and the call */
/* does nothing.  The run goes on in both cases.                            */
/* ------------------------------------------------------------------------ */

/*
 * bsp_stream_open -- open a stream made by the host.
 *
 * stream     storage for the handle, provided by the caller (a local
 *            variable will do); filled in by the call.
 * stream_id  the stream's number: streams are numbered by the host in the
 *            order of bsp_stream_create(), from 0, the same on all cores
 *            (the deprecated streams are numbered apart).
 *
 * Returns the stream's token size on success; 0, printing "BSP ERROR:
 * stream does not exist" or "BSP ERROR: stream with id N is in use", when
 * there is no such stream or a core (this one too) has it open.  Any core
 * may open any stream not in use.  The cursor starts at the first token;
 * no memory is taken yet.  Every successful open must be paired with one
 * bsp_stream_close().
 */
int bsp_stream_open(ebsp_stream *stream, int stream_id);

/*
 * bsp_stream_close -- close a stream.
 *
 * stream  a handle opened with bsp_stream_open().
 *
 * Waits for the stream's transfer in flight, frees its token buffers and
 * lets any core open it.  Passing a handle that is not open is undefined
 * on the board; here it is reported and does nothing.
 */
void bsp_stream_close(ebsp_stream *stream);

/*
 * bsp_stream_move_down -- get the token at the cursor.
 *
 * stream   an open stream.
 * buffer   receives the address of a local copy of the token (NULL at the
 *          end of the stream).  The token handed out by the previous call
 *          is overwritten.
 * preload  nonzero: also start fetching the token after it now, moving the
 *          cursor past that one too (double buffering, a second token
 *          buffer); the next call hands it out, even if the stream was
 *          moved up meanwhile.  Zero: fetch each token when asked for.
 *
 * Returns the token's size in bytes, or 0 at the end of the stream.  The
 * first call takes a token buffer of the token size + 8 bytes from local
 * memory; without room it prints "BSP ERROR: could not allocate enough
 * memory for stream" and returns 0.  A token larger than the token size
 * (moved up so) is cut to it, printing "BSP ERROR: Stream contained token
 * larger (N) than maximum token size (M) for stream. (truncated)".
 */
int bsp_stream_move_down(ebsp_stream *stream, void **buffer, int preload);

/*
 * bsp_stream_move_up -- write a token at the cursor.
 *
 * stream               an open stream.
 * data                 the token to write; it is read straight from here.
 * data_size            its size in bytes, rounded up to a multiple of 8 (the
 *                      bytes after data_size go up too).
 * wait_for_completion  nonzero: return only when the token is written;
 *                      zero: return at once and keep data untouched until
 *                      the next call on this stream.
 *
 * Waits for the stream's previous transfer first, so a core can fill a
 * second buffer while the first one is being written (double buffering).
 * The token is written at the cursor with the header after it ending the
 * stream there, and the cursor moves past it.
 *
 * Returns the rounded size.  A size above the token size prints "BSP
 * WARNING: Moving token of size N up to stream S with max token size M"
 * and the token is written all the same.  When the token and two headers
 * do not fit in what is left of the stream's area, it prints "BSP ERROR:
 * Stream S has L space left, token of size N+16 can not be moved up." and
 * returns 0.  (The area was sized for stream_size bytes in tokens of
 * token_size, so smaller tokens fit fewer data bytes in all.)
 */
int bsp_stream_move_up(ebsp_stream *stream, const void *data, int data_size,
                       int wait_for_completion);

/*
 * bsp_stream_seek -- move a stream's cursor.
 *
 * stream        an open stream.
 * delta_tokens  how many tokens to skip forward (positive) or go back
 *               (negative).  Moving past either end stops at that end;
 *               INT_MIN goes straight to the start, INT_MAX to the end.
 *
 * A preloaded token is dropped.  As a move down with preload has moved the
 * cursor past the preloaded token, a seek after it counts from the token
 * after that one (a seek by 0 skips it).
 */
void bsp_stream_seek(ebsp_stream *stream, int delta_tokens);

#ifdef __cplusplus
}
#endif

#endif /* EBSP_E_BSP_H */
