/*
 * host_bsp_deprecated.h -- the host half of the stream API that EBSP 1.0
 * keeps for older programs, shipped with libebsp.
 *
 * host_bsp.h includes this header, as EBSP's does, so host programs never
 * need to include it themselves.  New code uses bsp_stream_create() (see
 * host_bsp.h).
 *
 * A stream made here belongs to one core, which opens it with the calls of
 * e_bsp_deprecated.h.  The library lays the stream out in external memory
 * like every other stream (see bsp_stream_create()).
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
 * dst_core_id  pid of the only core that will read the stream.
 * nbytes       size of the data in bytes.
 * chunksize    size in bytes of one chunk (token); the last chunk may be
 *              smaller.  Any positive size is accepted (the 16-byte
 *              minimum of bsp_stream_create() does not apply).
 *
 * Each core has its own numbering of the streams made for it with this call
 * and ebsp_create_up_stream(), starting at 0 in order of creation; the core
 * opens the stream with ebsp_open_down_stream() using that number.
 *
 * Returns nothing, as in EBSP: the stream's number follows from the order
 * of the calls.  A failure (bad pid or chunk size, external memory
 * exhausted) is printed on stderr and no stream is made.  Call before
 * ebsp_spmd().
 */
void ebsp_create_down_stream(const void *src, int dst_core_id, int nbytes, int chunksize);

/*
 * ebsp_create_up_stream -- make room for data sent up by one core
 * (deprecated).
 *
 * src_core_id  pid of the only core that will write the stream.
 * nbytes       the most data, in bytes, the core may send up, counted in
 *              chunks of chunksize: the stream's area has an 8-byte header
 *              for each such chunk, so chunks sent smaller (see
 *              ebsp_set_up_chunk_size()) fit fewer data bytes in all.
 * chunksize    size in bytes of the largest chunk the core may send.
 *
 * The stream gets the next number in that core's numbering (see
 * ebsp_create_down_stream()); the core opens it with ebsp_open_up_stream().
 *
 * Returns a pointer to the stream's area in external memory, laid out as
 * described for bsp_stream_create(), where the chunks can be read after
 * ebsp_spmd(); NULL on failure.  Valid until bsp_end().
 */
void *ebsp_create_up_stream(int src_core_id, int nbytes, int chunksize);

#ifdef __cplusplus
}
#endif

#endif /* EBSP_HOST_BSP_DEPRECATED_H */
