/*
 * Core-side memory calls: ebsp_malloc and ebsp_free on the emulated local
 * and external memories (kept by the Go engine), ebsp_memcpy, and the DMA
 * calls. The core's DMA engine (emesh.DMA) queues and times transfers and
 * copies them when they are waited for; the waiting happens here, the
 * passing of time until a transfer's modelled end in the scheduler
 * (sched_wait).
 */
#define _GNU_SOURCE
#include "../../capi/faces.h"

#include <e-lib.h>
#include <e_bsp.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

/* Tickets compare across the 32-bit wrap, as emesh.TicketDone does. */
static int ticket_done(unsigned int done, unsigned int ticket)
{
    return (int)(done - ticket) >= 0;
}

void mem_dma_wait(int pid, void *slot_ptr, unsigned int ticket)
{
    struct dma_slot *slot = slot_ptr;
    if (!slot || ticket == 0 || ticket_done(atomic_load(&slot->done), ticket))
        return;
    for (;;) {
        long long left = goDmaRun(pid, ticket); /* copies what is due, never blocks */
        if (left <= 0 || sched_stopped())
            return;
        sched_wait(NULL, 0, (uint64_t)left); /* until its modelled end */
    }
}

/* Completes every transfer the calling core has pushed before it enters
 * any synchronisation or leaves its kernel (the scheduler's settle hook),
 * so the bytes are in place for whoever looks after it. */
static void dma_settle(struct sched_core *core)
{
    struct ebsp_core *self = core_of(core);
    struct dma_slot *slot = self->dma_slot;
    if (!slot)
        return;
    unsigned int last = atomic_load(&slot->issued);
    if (!ticket_done(atomic_load(&slot->done), last))
        mem_dma_wait(self->pid, slot, last);
}

void *ebsp_malloc(unsigned int nbytes)
{
    struct ebsp_core *self = ebsp_self;
    return self ? goMalloc(self->pid, nbytes) : NULL;
}

void *ebsp_ext_malloc(unsigned int nbytes)
{
    struct ebsp_core *self = ebsp_self;
    return self ? goExtMalloc(self->pid, nbytes) : NULL;
}

void ebsp_free(void *ptr)
{
    struct ebsp_core *self = ebsp_self;
    if (self)
        goFree(self->pid, user_pointer_for_go(ptr), user_pointer_small_value(ptr));
}

void *ebsp_local_address(unsigned int offset)
{
    struct ebsp_core *self = ebsp_self;
    return self ? goLocalAddress(self->pid, offset) : NULL;
}

void ebsp_memcpy(void *dst, const void *src, size_t nbytes)
{
    dst = core_pointer(ebsp_self, dst);
    src = core_pointer(ebsp_self, src);
    memcpy(dst, src, nbytes);
}

/* A handle carries its ticket, its engine (core and slot) and a check
 * word over the three, so that a handle that was never pushed (stack
 * garbage) describes no transfer instead of leading the wait astray. */
static uintptr_t handle_check(const ebsp_dma_handle *desc)
{
    return ((uintptr_t)desc->reserved[0] ^ (uintptr_t)desc->ticket ^ ((uintptr_t)desc->core << 8)) + 0x9e3779b9u;
}

void ebsp_dma_push(ebsp_dma_handle *desc, void *dst, const void *src, size_t nbytes)
{
    struct ebsp_core *self = ebsp_self;
    desc = core_pointer(self, desc);
    dst = core_pointer(self, dst);
    src = core_pointer(self, src);
    if (!desc || nbytes == 0) /* as EBSP: the handle is left as it was */
        return;
    memset(desc, 0, sizeof *desc);
    desc->dst = dst;
    desc->src = src;
    desc->nbytes = nbytes;
    if (!self) { /* not a core: there is no engine, copy at once */
        memcpy(dst, src, nbytes);
        desc->core = -1;
        return;
    }
    desc->core = self->pid;
    if (user_pointer_refused(self->pid, "ebsp_dma_push", "the source", src, nbytes, 0) ||
        user_pointer_refused(self->pid, "ebsp_dma_push", "the destination", dst, nbytes, 1)) {
        sched_leave_if_stopped(); /* the handle keeps ticket 0: nothing to wait for */
        return;
    }
    desc->ticket = goDmaPush(self->pid, dst, (void *)(uintptr_t)src, nbytes, &desc->reserved[0]);
    desc->reserved[1] = (void *)handle_check(desc);
    struct dma_slot *slot = desc->reserved[0];
    if (slot && slot->sync) /* EBSP_DMA_SYNC=1: complete before returning */
        ebsp_dma_wait(desc);
    else if (desc->ticket == 0) /* refused: the run is stopped */
        sched_leave_if_stopped();
}

void ebsp_dma_wait(ebsp_dma_handle *desc)
{
    desc = core_pointer(ebsp_self, desc);
    if (!desc || desc->ticket == 0 || desc->reserved[1] != (void *)handle_check(desc))
        return;
    mem_dma_wait(desc->core, desc->reserved[0], desc->ticket);
    sched_leave_if_stopped();
}

/* The SDK's blocking DMA copy (e-lib.h): a transfer on the core's engine,
 * waited for, so that it takes the board's time. */
int e_dma_copy(void *dst, void *src, size_t n)
{
    ebsp_dma_handle h;
    memset(&h, 0, sizeof h);
    ebsp_dma_push(&h, dst, src, n);
    ebsp_dma_wait(&h);
    return 0;
}

static const struct sched_hooks dma_hooks = {.settle = dma_settle};

__attribute__((constructor)) static void dma_register(void)
{
    sched_add_hooks(&dma_hooks);
}
