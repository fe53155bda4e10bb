/*
 * e_bsp_datatypes.h -- data types shared by the two sides of libebsp.
 *
 * libebsp emulates the Epiphany BSP (EBSP) platform on an ordinary Linux
 * machine.  This header holds the few structures that both the host API
 * (host_bsp.h) and the kernel API (e_bsp.h) refer to.  It is included by
 * both of them; programs normally do not include it directly.
 *
 * The layout of these structures is part of the library ABI.  Programs may
 * allocate them (on the stack, as globals, with malloc) but should treat all
 * fields as owned by the library: they are filled in and read by the calls
 * that take the structure, and their meaning may change between versions.
 * The reserved fields give the library room to grow without changing the
 * size of the structures.
 */
#ifndef EBSP_E_BSP_DATATYPES_H
#define EBSP_E_BSP_DATATYPES_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Describes one transfer queued on a core's (emulated) DMA engine with
 * ebsp_dma_push() and waited for with ebsp_dma_wait().
 *
 * dst, src, nbytes  the transfer as it was requested.
 * ticket            position of the transfer in the issuing core's DMA
 *                   queue; 0 means the handle describes no transfer.
 * core              pid of the core whose DMA engine carries it out.
 * reserved          private to the library.
 *
 * The handle must stay in place (not be moved, copied over or go out of
 * scope) until the transfer has been waited for.
 */
typedef struct ebsp_dma_handle {
    void *dst;
    const void *src;
    size_t nbytes;
    unsigned int ticket;
    int core;
    void *reserved[4];
} ebsp_dma_handle;

/*
 * A kernel's handle on a stream made by the host with bsp_stream_create().
 * It is filled in by bsp_stream_open() and used by the other bsp_stream_*
 * calls until bsp_stream_close().  The program provides the storage (a local
 * variable is fine); every field belongs to the library.
 *
 * The names of the fields say roughly what the library keeps in them (the
 * stream's number, whether it is used as a down stream, token sizes, the
 * stream's area in external memory and the position in it, the local token
 * buffers and the DMA transfer in flight), but that is for debugging only:
 * programs must not read or change them.
 */
typedef struct ebsp_stream {
    int id;
    int is_down;
    int token_size;
    int max_token_size;
    void *extmem_start;
    void *extmem_end;
    void *cursor;
    void *current_buffer;
    void *next_buffer;
    int next_size;
    ebsp_dma_handle dma;
    void *reserved[8];
} ebsp_stream;

#ifdef __cplusplus
}
#endif

#endif /* EBSP_E_BSP_DATATYPES_H */
