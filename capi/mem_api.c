/*
 * Core-side memory calls: ebsp_malloc and ebsp_free on the emulated local
 * and external memories (kept by the Go engine), ebsp_memcpy, and the DMA
 * calls. A transfer is carried out by the core's DMA engine in Go; waiting
 * for it happens here, on the engine's completion word in mmap'ed memory.
 */
#define _GNU_SOURCE
#include "shim.h"
#include "mem.h"

#include <e_bsp.h>
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Same layout as emesh.DMASlot. */
struct dma_slot {
    _Atomic unsigned int done;     /* last completed ticket */
    _Atomic unsigned int waiters;  /* threads sleeping on done */
};

enum { DMA_SPIN_YIELDS = 20 };

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
    goDmaHelp(pid, ticket); /* does work, never blocks */
    for (int i = 0;; i++) {
        unsigned int done = atomic_load(&slot->done);
        if (ticket_done(done, ticket))
            return;
        if (i < DMA_SPIN_YIELDS) {
            sched_yield();
            continue;
        }
        /* The engine stores done, then looks at waiters; we count ourselves
         * in, then look at done: one of the two sees the other. */
        atomic_fetch_add(&slot->waiters, 1);
        done = atomic_load(&slot->done);
        if (!ticket_done(done, ticket))
            syscall(SYS_futex, (unsigned int *)&slot->done, FUTEX_WAIT_PRIVATE, done, NULL, NULL, 0);
        atomic_fetch_sub(&slot->waiters, 1);
    }
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
        goFree(self->pid, ptr);
}

void *ebsp_local_address(unsigned int offset)
{
    struct ebsp_core *self = ebsp_self;
    return self ? goLocalAddress(self->pid, offset) : NULL;
}

void ebsp_memcpy(void *dst, const void *src, size_t nbytes)
{
    memcpy(dst, src, nbytes);
}

void ebsp_dma_push(ebsp_dma_handle *desc, void *dst, const void *src, size_t nbytes)
{
    struct ebsp_core *self = ebsp_self;
    if (!desc)
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
    desc->ticket = goDmaPush(self->pid, dst, (void *)(uintptr_t)src, nbytes, &desc->reserved[0]);
}

void ebsp_dma_wait(ebsp_dma_handle *desc)
{
    if (!desc || desc->ticket == 0)
        return;
    mem_dma_wait(desc->core, desc->reserved[0], desc->ticket);
    sched_leave_if_stopped();
}
