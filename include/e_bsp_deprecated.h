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
 * and down streams counted together in order of creation.  The library keeps
 * one open handle per stream number and core.  Misuse is reported as
 * "$PP: BSP ERROR: <call>: <what> (superstep N)" and the call fails (returns
 * 0 where it returns a value); the run goes on.
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
 * address    receives the address of the stream's local chunk buffer.
 * stream_id  this core's number for the stream.
 *
 * Returns the stream's largest chunk size in bytes (the size of the
 * buffer), or 0 on failure.  Fetching of the first chunk starts; get it
 * with ebsp_move_chunk_down().
 */
int ebsp_open_down_stream(void **address, unsigned int stream_id);

/*
 * ebsp_open_up_stream -- open one of this core's up streams (deprecated).
 *
 * address    receives the address of a local buffer in which to build the
 *            first chunk.
 * stream_id  this core's number for the stream.
 *
 * Returns the stream's largest chunk size in bytes (the size of the
 * buffer), or 0 on failure.
 */
int ebsp_open_up_stream(void **address, unsigned int stream_id);

/*
 * ebsp_close_down_stream -- close a down stream (deprecated).
 *
 * stream_id  this core's number for the stream.
 *
 * Waits for transfers in flight and frees the stream's local buffers.
 */
void ebsp_close_down_stream(unsigned int stream_id);

/*
 * ebsp_close_up_stream -- close an up stream (deprecated).
 *
 * stream_id  this core's number for the stream.
 *
 * Waits until the chunks sent up have been written and frees the stream's
 * local buffers.
 */
void ebsp_close_up_stream(unsigned int stream_id);

/*
 * ebsp_move_chunk_down -- get the next chunk of a down stream
 * (deprecated).
 *
 * address    receives the address of the chunk in local memory.
 * stream_id  this core's number for the stream.
 * prealloc   nonzero: fetch the following chunk in the background
 *            (double buffering, two local buffers).
 *
 * Returns the chunk's size in bytes, or 0 when the stream is exhausted or
 * on error.
 */
int ebsp_move_chunk_down(void **address, unsigned int stream_id, int prealloc);

/*
 * ebsp_move_chunk_up -- send a chunk up (deprecated).
 *
 * address    on entry, *address is the buffer holding the chunk (as given
 *            by ebsp_open_up_stream() or the previous call); on return it
 *            is the buffer in which to build the next chunk.
 * stream_id  this core's number for the stream.
 * prealloc   nonzero: do not wait for the chunk to be written, and hand
 *            out a second buffer for the next chunk (double buffering);
 *            zero: wait, and hand out the same buffer again.
 *
 * The chunk's size is the one set with ebsp_set_up_chunk_size(), by
 * default the stream's largest chunk size.  Returns the number of bytes
 * sent up, or 0 on error (for example when the stream is full).
 */
int ebsp_move_chunk_up(void **address, unsigned int stream_id, int prealloc);

/*
 * ebsp_move_down_cursor -- skip chunks of a down stream (deprecated).
 *
 * stream_id      this core's number for the stream.
 * jump_n_chunks  chunks to skip forward (positive) or back (negative);
 *                stops at either end of the stream.
 *
 * A chunk being preloaded is discarded; the next ebsp_move_chunk_down()
 * returns the chunk at the new position.
 */
void ebsp_move_down_cursor(int stream_id, int jump_n_chunks);

/*
 * ebsp_reset_down_cursor -- go back to the first chunk of a down stream
 * (deprecated).
 *
 * stream_id  this core's number for the stream.
 *
 * The next ebsp_move_chunk_down() returns the first chunk again.
 */
void ebsp_reset_down_cursor(int stream_id);

/*
 * ebsp_set_up_chunk_size -- set the size of the chunks sent up
 * (deprecated).
 *
 * stream_id  this core's number for the stream.
 * nbytes     size in bytes of the chunks sent by the following
 *            ebsp_move_chunk_up() calls on this stream, until changed; at
 *            most the stream's largest chunk size.
 */
void ebsp_set_up_chunk_size(unsigned int stream_id, int nbytes);

#ifdef __cplusplus
}
#endif

#endif /* EBSP_E_BSP_DEPRECATED_H */
