/*
 * Core-side stream calls, current and deprecated: the Go engine decides
 * (ownership, cursor, buffers, which DMA transfers to start) and these
 * wrappers wait in C for the transfer it names before handing a token out.
 * Misuse is printed by the Go side and the call returns its failure value;
 * the run goes on.
 */
#include "shim.h"
#include "mem.h"

#include <e_bsp.h>
#include <stdint.h>
#include <string.h>

/* Waits for what a Go stream call started, then leaves the kernel if the
 * run was stopped meanwhile (by another core). */
static void settle(const struct stream_result *r)
{
    if (ebsp_self)
        mem_dma_wait(ebsp_self->pid, r->slot, r->ticket);
    sched_leave_if_stopped();
}

static void close_stream(char *call, int id, int api)
{
    struct ebsp_core *self = ebsp_self;
    struct stream_result r = {0};
    if (!self)
        return;
    if (goStreamClose(self->pid, call, id, api, &r)) {
        mem_dma_wait(self->pid, r.slot, r.ticket);
        goStreamRelease(self->pid, id, api);
    }
    sched_leave_if_stopped();
}

int bsp_stream_open(ebsp_stream *stream, int stream_id)
{
    struct ebsp_core *self = ebsp_self;
    struct stream_result r = {0};
    if (!self || !stream)
        return 0;
    memset(stream, 0, sizeof *stream);
    stream->id = stream_id; /* kept on failure too, so later misuse names it */
    int token_size = goStreamOpen(self->pid, "bsp_stream_open", stream_id, STREAM_CURRENT, &r);
    stream->token_size = stream->max_token_size = token_size;
    stream->current_buffer = r.buffer;
    sched_leave_if_stopped();
    return token_size;
}

void bsp_stream_close(ebsp_stream *stream)
{
    if (stream)
        close_stream("bsp_stream_close", stream->id, STREAM_CURRENT);
}

int bsp_stream_move_down(ebsp_stream *stream, void **buffer, int preload)
{
    struct ebsp_core *self = ebsp_self;
    struct stream_result r = {0};
    if (!self || !stream)
        return 0;
    int size = goStreamMoveDown(self->pid, "bsp_stream_move_down", stream->id, STREAM_CURRENT, preload, &r);
    settle(&r);
    if (size > 0) {
        stream->current_buffer = r.buffer;
        if (buffer)
            *buffer = r.buffer;
    }
    return size;
}

int bsp_stream_move_up(ebsp_stream *stream, const void *data, int data_size, int wait_for_completion)
{
    struct ebsp_core *self = ebsp_self;
    struct stream_result r = {0};
    if (!self || !stream)
        return 0;
    int size = goStreamMoveUp(self->pid, "bsp_stream_move_up", stream->id, STREAM_CURRENT,
                              (void *)(uintptr_t)data, data_size, wait_for_completion, &r);
    settle(&r);
    return size;
}

void bsp_stream_seek(ebsp_stream *stream, int delta_tokens)
{
    struct ebsp_core *self = ebsp_self;
    if (!self || !stream)
        return;
    goStreamSeek(self->pid, "bsp_stream_seek", stream->id, STREAM_CURRENT, delta_tokens);
    sched_leave_if_stopped();
}

/* ---- deprecated calls, on the same engine ---- */

static int open_legacy(char *call, void **address, unsigned int stream_id, int api)
{
    struct ebsp_core *self = ebsp_self;
    struct stream_result r = {0};
    if (!self)
        return 0;
    int size = goStreamOpen(self->pid, call, (int)stream_id, api, &r);
    if (size > 0 && address)
        *address = r.buffer;
    sched_leave_if_stopped();
    return size;
}

int ebsp_open_down_stream(void **address, unsigned int stream_id)
{
    return open_legacy("ebsp_open_down_stream", address, stream_id, STREAM_LEGACY_DOWN);
}

int ebsp_open_up_stream(void **address, unsigned int stream_id)
{
    return open_legacy("ebsp_open_up_stream", address, stream_id, STREAM_LEGACY_UP);
}

void ebsp_close_down_stream(unsigned int stream_id)
{
    close_stream("ebsp_close_down_stream", (int)stream_id, STREAM_LEGACY_DOWN);
}

void ebsp_close_up_stream(unsigned int stream_id)
{
    close_stream("ebsp_close_up_stream", (int)stream_id, STREAM_LEGACY_UP);
}

int ebsp_move_chunk_down(void **address, unsigned int stream_id, int prealloc)
{
    struct ebsp_core *self = ebsp_self;
    struct stream_result r = {0};
    if (!self)
        return 0;
    int size = goStreamMoveDown(self->pid, "ebsp_move_chunk_down", (int)stream_id, STREAM_LEGACY_DOWN, prealloc, &r);
    settle(&r);
    if (size > 0 && address)
        *address = r.buffer;
    return size;
}

int ebsp_move_chunk_up(void **address, unsigned int stream_id, int prealloc)
{
    struct ebsp_core *self = ebsp_self;
    struct stream_result r = {0};
    if (!self || !address)
        return 0;
    int size = goStreamMoveChunkUp(self->pid, "ebsp_move_chunk_up", (int)stream_id, *address, prealloc, &r);
    settle(&r);
    if (size > 0)
        *address = r.buffer;
    return size;
}

void ebsp_move_down_cursor(int stream_id, int jump_n_chunks)
{
    struct ebsp_core *self = ebsp_self;
    if (!self)
        return;
    goStreamSeek(self->pid, "ebsp_move_down_cursor", stream_id, STREAM_LEGACY_DOWN, jump_n_chunks);
    sched_leave_if_stopped();
}

void ebsp_reset_down_cursor(int stream_id)
{
    struct ebsp_core *self = ebsp_self;
    if (!self)
        return;
    goStreamSeek(self->pid, "ebsp_reset_down_cursor", stream_id, STREAM_LEGACY_DOWN, INT_MIN);
    sched_leave_if_stopped();
}

void ebsp_set_up_chunk_size(unsigned int stream_id, int nbytes)
{
    struct ebsp_core *self = ebsp_self;
    if (!self)
        return;
    goStreamSetUpChunkSize(self->pid, "ebsp_set_up_chunk_size", (int)stream_id, nbytes);
    sched_leave_if_stopped();
}
