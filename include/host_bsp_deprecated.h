/*
 * host_bsp_deprecated.h -- the host half of the stream API that EBSP 1.0
 * keeps for older programs, shipped with libebsp.
 *
 * host_bsp.h includes this header, as EBSP's does, so host programs never
 * need to include it themselves.  New code uses bsp_stream_create() (see
 * host_bsp.h).
 *
 * A stream made here belongs to one core, which opens it with the calls of
 * e_bsp_deprecated.h.  Each core has its own numbering of these streams,
 * apart from the bsp_stream_create() streams.  A down stream is laid out
 * like those; an up stream is raw.  Failures the board reported print its
 * line on stdout, as there.
 */
#ifndef EBSP_HOST_BSP_DEPRECATED_H
#define EBSP_HOST_BSP_DEPRECATED_H

#ifdef __cplusplus
extern "C" {
#endif

/*
 * ebsp_create_down_stream -- make a stream of data for one core
 * (deprecated).
 *
 * src          nbytes bytes of data to stream; copied by the call.
 * dst_core_id  pid of the only core that will read the stream (any core
 *              of the chip; one that bsp_begin() did not start never
 *              reads it).
 * nbytes       size of the data in bytes.
 * chunksize    size in bytes of one chunk; the last chunk may be smaller.
 *              At least 16, else "ERROR: minimum chunk size is 16 bytes".
 *
 * The data is laid out in chunks like a bsp_stream_create() stream.  Each
 * core has its own numbering of the streams made for it with this call
 * and ebsp_create_up_stream(), starting at 0 in order of creation; the core
 * opens the stream with ebsp_open_down_stream() using that number.
 *
 * Returns nothing, as in EBSP: the stream's number follows from the order
 * of the calls.  On failure no stream is made: "ERROR: not enough memory
 * in extmem for ebsp_send_buffered_raw" on stdout as on the board, or
 * "ebsp: ERROR: ..." on stderr for what the board crashed on (a pid the
 * chip does not have, a negative size, NULL data).  Call before
 * ebsp_spmd().
 */
void ebsp_create_down_stream(const void *src, int dst_core_id, int nbytes, int chunksize);

/*
 * ebsp_create_up_stream -- make room for data sent up by one core
 * (deprecated).
 *
 * src_core_id  pid of the only core that will write the stream.
 * nbytes       size of the stream's area in bytes.
 * chunksize    size in bytes of the chunks the core sends up; at least 16.
 *
 * The stream gets the next number in that core's numbering (see
 * ebsp_create_down_stream()); the core opens it with ebsp_open_up_stream().
 *
 * Returns a pointer to the stream's area in external memory, NULL on
 * failure ("ERROR: not enough memory in extmem for ebsp_get_buffered").
 * The area is raw, without headers: the chunks the core sends up follow
 * each other, each of chunksize bytes, so after ebsp_spmd() the host reads
 * them as a flat array.  Valid until bsp_end().
 */
void *ebsp_create_up_stream(int src_core_id, int nbytes, int chunksize);

#ifdef __cplusplus
}
#endif

#endif /* EBSP_HOST_BSP_DEPRECATED_H */
