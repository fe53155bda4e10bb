/*
 * Internal interface of the memory, DMA and stream calls: the Go exports
 * they call (capi/mem.go, capi/stream.go) and the C-side DMA wait. Waits
 * happen here in C, never inside a Go call.
 */
#ifndef EBSP_MEM_H
#define EBSP_MEM_H

#include <stddef.h>

struct ebsp_core;

/* Which family of stream calls names a stream (runtime.StreamAPI). */
enum stream_api { STREAM_CURRENT = 0, STREAM_LEGACY_DOWN = 1, STREAM_LEGACY_UP = 2 };

/* What a Go stream call asks the C side to do: wait until DMA ticket
 * `ticket` of the core's engine (completion slot `slot`) is complete, then
 * hand `buffer` and `size` to the kernel. */
struct stream_result {
    void *buffer;
    int size;
    unsigned int ticket;
    void *slot;
};

/* Blocks until DMA ticket of core pid is complete; slot is the engine's
 * shared state (emesh.DMASlot). The engine copies a transfer only when it
 * is waited for and its modelled time has come (goDmaRun); in between this
 * sleeps. Returns at once for ticket 0 or a NULL slot, and early when the
 * run is stopped. */
void mem_dma_wait(int pid, void *slot, unsigned int ticket);

/* Completes every transfer the calling core has pushed (waiting for their
 * modelled time): a core does this before it enters any synchronisation or
 * leaves its kernel, so the bytes are in place for whoever looks after it.
 * Costs two loads when nothing is pending. */
void mem_dma_settle(struct ebsp_core *self);

/* ---- Go exports (capi/mem.go) ---- */
extern void *goMalloc(int pid, unsigned int nbytes);
extern void *goExtMalloc(int pid, unsigned int nbytes);
extern void goFree(int pid, void *ptr);
extern void *goLocalAddress(int pid, unsigned int offset);
extern long long goDmaRun(int pid, unsigned int ticket);
extern unsigned int goDmaPush(int pid, void *dst, void *src, size_t nbytes, void **slot);
extern int goHostCopy(int pid, long long value, void *ptr, void *buf, int nbytes, int to_core);

/* ---- Go exports (capi/stream.go) ---- */
extern void *goStreamCreate(int stream_size, int token_size, void *data);
extern int goCreateDownStream(void *data, int pid, int nbytes, int chunksize);
extern void *goCreateUpStream(int pid, int nbytes, int chunksize);
extern int goStreamOpen(int pid, char *call, int id, int api, struct stream_result *res);
extern int goStreamMoveDown(int pid, char *call, int id, int api, int preload, struct stream_result *res);
extern int goStreamMoveUp(int pid, char *call, int id, int api, void *data, int nbytes, int wait, struct stream_result *res);
extern int goStreamMoveChunkUp(int pid, char *call, int id, void *chunk, int prealloc, struct stream_result *res);
extern void goStreamSeek(int pid, char *call, int id, int api, int delta);
extern int goStreamClose(int pid, char *call, int id, int api, struct stream_result *res);
extern void goStreamRelease(int pid, int id, int api);
extern void goStreamSetUpChunkSize(int pid, char *call, int id, int nbytes);

#endif
