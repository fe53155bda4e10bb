/*
 * Internal interface of the memory, DMA and stream calls: the Go exports
 * they call (capi/mem.go, capi/stream.go) and the C-side DMA wait. Waits
 * happen here in C, never inside a Go call.
 */
#ifndef EBSP_MEM_H
#define EBSP_MEM_H

#include <stddef.h>
#include <stdint.h>

struct ebsp_core;

/* The cores' stream calls (goStream's op). */
enum stream_op {
    STREAM_OPEN, STREAM_CLOSE, STREAM_MOVE_DOWN, STREAM_MOVE_UP, STREAM_SEEK,
    LEGACY_OPEN_DOWN, LEGACY_OPEN_UP, LEGACY_CLOSE_DOWN, LEGACY_CLOSE_UP,
    LEGACY_MOVE_DOWN, LEGACY_MOVE_UP, LEGACY_MOVE_CURSOR, LEGACY_RESET_CURSOR,
    LEGACY_SET_UP_CHUNK_SIZE
};

/* A core's DMA engine state, allocated and kept by the Go engine
 * (emesh.DMASlot, one cache line each) and read and waited on here. Its
 * Go twin and the layout check are in capi/twins.go. */
struct dma_slot {
    _Atomic unsigned int done;   /* last complete ticket */
    _Atomic unsigned int issued; /* last ticket pushed */
    unsigned int sync;           /* EBSP_DMA_SYNC=1 */
};

/* What a Go stream call asks the C side to do (engine.StreamResult): with `again`,
 * wait until DMA ticket `ticket` of the core's engine (completion word
 * `slot`) is complete and make the same call again; otherwise wait for
 * `ticket` (0: nothing), hand `buffer` to the kernel when `set_buffer`, and
 * return `size`. */
struct stream_result {
    void *buffer;
    void *slot;
    unsigned int ticket;
    int size;
    int set_buffer;
    int again;
};

/* Blocks until DMA ticket of core pid is complete; slot is the engine's
 * shared state (emesh.DMASlot). The engine copies a transfer only when it
 * is waited for and its modelled time has come (goDmaRun); in between this
 * sleeps. Returns at once for ticket 0 or a NULL slot, and early when the
 * run is stopped. */
void mem_dma_wait(int pid, void *slot, unsigned int ticket);

/* ---- Go exports (capi/mem.go) ---- */
extern void *goMalloc(int pid, unsigned int nbytes);
extern void *goExtMalloc(int pid, unsigned int nbytes);
/* ptr as user_pointer_for_go passes it, small its value when it is a
 * number below 4096 (user_pointer_small_value, core.h). */
extern void goFree(int pid, void *ptr, uintptr_t small);
extern void *goLocalAddress(int pid, unsigned int offset);
extern long long goDmaRun(int pid, unsigned int ticket);
extern unsigned int goDmaPush(int pid, void *dst, void *src, size_t nbytes, void **slot);
extern int goHostCopy(int pid, long long value, void *ptr, void *buf, int nbytes, int to_core);

/* ---- Go exports (capi/stream.go) ---- */
extern void *goStreamCreate(int stream_size, int token_size, void *data);
extern int goCreateDownStream(void *data, int pid, int nbytes, int chunksize);
extern void *goCreateUpStream(int pid, int nbytes, int chunksize);
/* data as user_pointer_for_go passes it, small_data its value when it is
 * a number below 4096 (user_pointer_small_value, core.h). */
extern void goStream(int pid, int op, int id, int arg, int arg2, void *data, uintptr_t small_data, struct stream_result *res);

#endif
