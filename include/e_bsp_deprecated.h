/*
 * e_bsp_deprecated.h -- the kernel half of the stream API that EBSP 1.0
 * keeps for older programs, shipped with libebsp.
 *
 * e_bsp.h includes this header, as EBSP's does, so kernels never need to
 * include it themselves.  New code uses the bsp_stream_* calls of e_bsp.h.
 *
 * These calls work on the streams the host made for one core with
 * ebsp_create_down_stream() and ebsp_create_up_stream() (see
 * host_bsp_deprecated.h).  stream_id is the number the stream has for the
 * calling core: 0 for the first such stream made for it, 1 for the next, up
 * and down streams counted together in order of creation.  Each run starts
 * with them all closed and their cursors at the start.  They behave as on
 * the board, texts included: "BSP ERROR: stream does not exist", "BSP
 * ERROR: mixed up and down streams" (a down stream used as an up stream or
 * the other way round), "BSP ERROR: could not allocate enough memory for
 * stream", and the texts below; the call returns 0 or does nothing.  What
 * the board did not survive (a stream used before it is opened, say) is
 * reported as "$PP: BSP ERROR: <call>: <what> (superstep N)" and the call
 * does nothing.  The run goes on.
 *
 * As in EBSP, some of these calls are declared with "unsigned int" stream
 * numbers and others with "int".
 */
#ifndef EBSP_E_BSP_DEPRECATED_H
#define EBSP_E_BSP_DEPRECATED_H

#ifdef __cplusplus
extern "C" {
#endif

/*
 * ebsp_open_down_stream -- open one of this core's down streams
 * (deprecated).
 *
 * address    receives the address of the buffer the first chunk is being
 *            fetched into; get it with ebsp_move_chunk_down().
 * stream_id  this core's number for the stream.
 *
 * Returns the stream's largest chunk size in bytes, or 0 ("BSP ERROR:
 * tried to open opened stream" when it is open).
 */
int ebsp_open_down_stream(void **address, unsigned int stream_id);

/*
 * ebsp_open_up_stream -- open one of this core's up streams (deprecated).
 *
 * address    receives the address of a local buffer of the largest chunk
 *            size in which to build the first chunk.
 * stream_id  this core's number for the stream.
 *
 * Returns the stream's largest chunk size in bytes, or 0 ("BSP ERROR:
 * tried creating opened stream" when it is open).
 */
int ebsp_open_up_stream(void **address, unsigned int stream_id);

/*
 * ebsp_close_down_stream -- close a down stream (deprecated).
 *
 * stream_id  this core's number for the stream.
 *
 * Waits for transfers in flight and frees the stream's local buffers.  As
 * on the board, a stream opened but not yet moved down counts as closed:
 * "BSP ERROR: tried to close closed stream", and it stays open.
 */
void ebsp_close_down_stream(unsigned int stream_id);

/*
 * ebsp_close_up_stream -- close an up stream (deprecated).
 *
 * stream_id  this core's number for the stream.
 *
 * Waits until the chunks sent up have been written and frees the stream's
 * local buffers ("BSP ERROR: tried to close closed stream" when closed).
 */
void ebsp_close_up_stream(unsigned int stream_id);

/*
 * ebsp_move_chunk_down -- get the next chunk of a down stream
 * (deprecated).
 *
 * address    receives the address of the chunk in local memory (NULL at
 *            the end of the stream).
 * stream_id  this core's number for the stream.
 * prealloc   nonzero: fetch the following chunk in the background
 *            (double buffering, two local buffers); the next call hands it
 *            out, even after the end of the stream or a cursor move.
 *
 * Returns the chunk's size in bytes, or 0 at the end of the stream.
 */
int ebsp_move_chunk_down(void **address, unsigned int stream_id, int prealloc);

/*
 * ebsp_move_chunk_up -- send a chunk up (deprecated).
 *
 * address    receives the buffer in which to build the next chunk.  What
 *            is sent is the buffer handed out last (by
 *            ebsp_open_up_stream() or the previous call), whatever
 *            *address holds on entry.
 * stream_id  this core's number for the stream.
 * prealloc   nonzero: do not wait for the chunk to be written, and hand
 *            out the other of two buffers for the next chunk (double
 *            buffering); zero: wait, and hand out the same buffer again.
 *
 * An up stream is raw: each chunk, always of the largest chunk size, goes
 * right after the previous one, so the host reads a flat array.  Returns
 * the largest chunk size.  (A chunk that runs past the stream's end
 * overwrote the memory after it on the board; here only what fits is
 * written.)
 */
int ebsp_move_chunk_up(void **address, unsigned int stream_id, int prealloc);

/*
 * ebsp_move_down_cursor -- skip chunks of a down stream (deprecated).
 *
 * stream_id      this core's number for the stream.
 * jump_n_chunks  chunks to skip forward (positive) or back (negative).
 *
 * At either end of the stream it stops and prints "BSP ERROR: tried
 * jumping past bounds of stream".  A preloaded chunk is not dropped: the
 * next ebsp_move_chunk_down() still hands it out.
 */
void ebsp_move_down_cursor(int stream_id, int jump_n_chunks);

/*
 * ebsp_reset_down_cursor -- go back to the first chunk of a down stream
 * (deprecated).
 *
 * stream_id  this core's number for the stream.
 *
 * The next chunk read from the stream is the first (after a preloaded one,
 * which is not dropped).  On the board, this call left the cursor 8 bytes
 * before the stream, reading whatever was there as a header; here it
 * does what EBSP documents.
 */
void ebsp_reset_down_cursor(int stream_id);

/*
 * ebsp_set_up_chunk_size -- meant to set the size of the chunks sent up
 * (deprecated).
 *
 * stream_id  this core's number for the stream.
 * nbytes     the size.
 *
 * As on the board, this stores nbytes in the first 4 bytes of the current
 * chunk buffer and does not change the size of the chunks sent up: write
 * the chunk after calling it, or not at all.
 */
void ebsp_set_up_chunk_size(unsigned int stream_id, int nbytes);

#ifdef __cplusplus
}
#endif

#endif /* EBSP_E_BSP_DEPRECATED_H */
