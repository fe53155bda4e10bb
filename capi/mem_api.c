/*
 * Core-side memory calls: ebsp_malloc and ebsp_free on the emulated local
 * and external memories (kept by the Go engine), ebsp_memcpy, and the DMA
 * calls. The core's DMA engine (emesh.DMA) queues and times transfers and
 * copies them when they are waited for; the waiting, and the sleeping until
 * a transfer's modelled end, happen here.
 */
#define _GNU_SOURCE
#include "shim.h"
#include "mem.h"

#include <e_bsp.h>
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* A timed sleep here wakes 30-50 us late (a busy virtual machine), longer
 * than most modelled transfers, so the last DMA_SHORT_NS before a deadline
 * are waited out awake. How depends on who needs the CPU: when the cores
 * outnumber the CPUs, the other cores do, so the waiting core yields to
 * them (16 cores streaming on 2 CPUs: 8x the aggregate rate of spinning);
 * otherwise it spins, since under load from other processes one
 * sched_yield can hand the CPU away for a whole time slice (a one-core
 * stream of 4 KiB tokens ran 100x slower in one run). Either way the wait
 * is bounded by the deadline, unlike a barrier's. Naps are at most
 * DMA_NAP_MAX_NS, so that a stopped run is noticed. */
enum { DMA_SHORT_NS = 60000, DMA_NAP_MAX_NS = 10000000 };

/* Tickets compare across the 32-bit wrap, as emesh.TicketDone does. */
static int ticket_done(unsigned int done, unsigned int ticket)
{
    return (int)(done - ticket) >= 0;
}

static inline void cpu_relax(void)
{
#if defined(__i386__) || defined(__x86_64__)
    __builtin_ia32_pause();
#endif
}

/* Whether the cores of this run outnumber the CPUs. */
static int oversubscribed(void)
{
    static _Atomic long cpus;
    long n = atomic_load(&cpus);
    if (n == 0) {
        n = sysconf(_SC_NPROCESSORS_ONLN);
        if (n < 1)
            n = 1;
        atomic_store(&cpus, n);
    }
    return ebsp_active_nprocs > n;
}

/* Lets ns nanoseconds pass. */
static void dma_nap(long long ns)
{
    if (ns > DMA_NAP_MAX_NS)
        ns = DMA_NAP_MAX_NS;
    uint64_t until = ebsp_now_ns() + (uint64_t)ns;
    /* a coroutine core lets the other cores run until the deadline: a
     * sleep would block its worker and every core queued there */
    if (sched_pause()) {
        while (ebsp_now_ns() < until && sched_pause())
            ;
        return;
    }
    if (ns > DMA_SHORT_NS) {
        uint64_t wake = until - DMA_SHORT_NS;
        struct timespec ts = {(time_t)(wake / 1000000000u), (long)(wake % 1000000000u)};
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
            ;
    }
    int yield = oversubscribed();
    while (ebsp_now_ns() < until) {
        if (yield)
            sched_yield();
        else
            cpu_relax();
    }
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
        dma_nap(left);
    }
}

void mem_dma_settle(struct ebsp_core *self)
{
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
    if (user_pointer_small(src, nbytes) || user_pointer_small(dst, nbytes)) {
        int bad_src = user_pointer_small(src, nbytes);
        goBadUserMemory(self->pid, "ebsp_dma_push", bad_src ? "the source" : "the destination",
                        (uintptr_t)(bad_src ? src : dst), nbytes, 0, !bad_src);
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
    if (!desc || desc->ticket == 0 || desc->reserved[1] != (void *)handle_check(desc))
        return;
    mem_dma_wait(desc->core, desc->reserved[0], desc->ticket);
    sched_leave_if_stopped();
}
