/*
 * Core-side stream calls, current and deprecated: the Go engine carries
 * them out as the board's library does (engine/stream_core.go) and these
 * wrappers do the waiting it asks for, in C. The engine prints the board's
 * texts; every call returns and the run goes on.
 */
#include "../../capi/faces.h"

#include <e_bsp.h>
#include <stdint.h>
#include <string.h>

/* Makes stream call op in the engine: first waits for the stream's
 * previous transfer when the engine asks for it, then for the transfer the
 * call must see finished; hands the buffer out when the call sets one.
 * Leaves the kernel if the run was stopped meanwhile (by another core). */
static int stream_call(int op, int id, int arg, int arg2, const void *data, void **buffer)
{
    struct ebsp_core *self = ebsp_self;
    struct stream_result r;
    if (!self)
        return 0;
    data = core_pointer(self, data);
    buffer = core_pointer(self, buffer);
    for (;;) {
        memset(&r, 0, sizeof r);
        goStream(self->pid, op, id, arg, arg2, user_pointer_for_go(data), user_pointer_small_value(data), &r);
        if (!r.again)
            break;
        mem_dma_wait(self->pid, r.slot, r.ticket);
    }
    mem_dma_wait(self->pid, r.slot, r.ticket);
    if (r.set_buffer && buffer)
        *buffer = r.buffer;
    sched_leave_if_stopped();
    return r.size;
}

extern void goStreamNullHandle(int pid, char *call); /* capi/stream.go */

/* A NULL handle: the board's call read and wrote the core's memory from
 * address 0 on (its interrupt table); reported, and the call does nothing. */
static int null_handle(const char *call)
{
    struct ebsp_core *self = ebsp_self;
    if (self)
        goStreamNullHandle(self->pid, (char *)call);
    return 0;
}

int bsp_stream_open(ebsp_stream *stream, int stream_id)
{
    stream = core_pointer(ebsp_self, stream);
    if (!stream)
        return null_handle("bsp_stream_open");
    /* The board fills in the handle only on success; the id is kept here
     * on failure too, so that later misuse of the handle names it. */
    stream->id = stream_id;
    return stream_call(STREAM_OPEN, stream_id, 0, 0, NULL, NULL);
}

void bsp_stream_close(ebsp_stream *stream)
{
    stream = core_pointer(ebsp_self, stream);
    if (!stream)
        null_handle("bsp_stream_close");
    else
        stream_call(STREAM_CLOSE, stream->id, 0, 0, NULL, NULL);
}

int bsp_stream_move_down(ebsp_stream *stream, void **buffer, int preload)
{
    stream = core_pointer(ebsp_self, stream);
    buffer = core_pointer(ebsp_self, buffer);
    if (buffer)
        *buffer = NULL;
    if (!stream)
        return null_handle("bsp_stream_move_down");
    return stream_call(STREAM_MOVE_DOWN, stream->id, preload, 0, NULL, buffer);
}

int bsp_stream_move_up(ebsp_stream *stream, const void *data, int data_size, int wait_for_completion)
{
    stream = core_pointer(ebsp_self, stream);
    if (!stream)
        return null_handle("bsp_stream_move_up");
    return stream_call(STREAM_MOVE_UP, stream->id, data_size, wait_for_completion, data, NULL);
}

void bsp_stream_seek(ebsp_stream *stream, int delta_tokens)
{
    stream = core_pointer(ebsp_self, stream);
    if (!stream)
        null_handle("bsp_stream_seek");
    else
        stream_call(STREAM_SEEK, stream->id, delta_tokens, 0, NULL, NULL);
}

/* ---- deprecated calls; stream ids are unsigned, (int) makes huge ones
 * negative, which the engine treats as missing, as the board does ---- */

int ebsp_open_down_stream(void **address, unsigned int stream_id)
{
    return stream_call(LEGACY_OPEN_DOWN, (int)stream_id, 0, 0, NULL, address);
}

int ebsp_open_up_stream(void **address, unsigned int stream_id)
{
    return stream_call(LEGACY_OPEN_UP, (int)stream_id, 0, 0, NULL, address);
}

void ebsp_close_down_stream(unsigned int stream_id)
{
    stream_call(LEGACY_CLOSE_DOWN, (int)stream_id, 0, 0, NULL, NULL);
}

void ebsp_close_up_stream(unsigned int stream_id)
{
    stream_call(LEGACY_CLOSE_UP, (int)stream_id, 0, 0, NULL, NULL);
}

int ebsp_move_chunk_down(void **address, unsigned int stream_id, int prealloc)
{
    return stream_call(LEGACY_MOVE_DOWN, (int)stream_id, prealloc, 0, NULL, address);
}

int ebsp_move_chunk_up(void **address, unsigned int stream_id, int prealloc)
{
    return stream_call(LEGACY_MOVE_UP, (int)stream_id, prealloc, 0, NULL, address);
}

void ebsp_move_down_cursor(int stream_id, int jump_n_chunks)
{
    stream_call(LEGACY_MOVE_CURSOR, stream_id, jump_n_chunks, 0, NULL, NULL);
}

void ebsp_reset_down_cursor(int stream_id)
{
    stream_call(LEGACY_RESET_CURSOR, stream_id, 0, 0, NULL, NULL);
}

void ebsp_set_up_chunk_size(unsigned int stream_id, int nbytes)
{
    stream_call(LEGACY_SET_UP_CHUNK_SIZE, (int)stream_id, nbytes, 0, NULL, NULL);
}
