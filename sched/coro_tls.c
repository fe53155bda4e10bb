/*
 * Thread identity for coroutine cores (coro_tls.h).
 *
 * What this relies on (x86-64 Linux, glibc): the thread pointer is the FS
 * base and points at the thread's control block (struct pthread), which
 * holds pthread_self(), the keys' values and the DTV, with the static TLS
 * blocks (errno, every initial-exec __thread variable) just below it;
 * dynamic TLS (dlopen'ed modules) is reached through the DTV of the same
 * block. So a thread's whole identity moves with the FS base. The blocks
 * lent here are those of real threads (donors) that glibc made and keeps
 * in its thread list: their TLS is initialised as for any thread, a
 * module loaded later gets its static TLS copied into them too, and their
 * destructors run when they exit. The stack-protector canary and the
 * pointer guard at %fs:0x28 and %fs:0x30 are the same in every thread of a
 * process (each copies its creator's), so a frame that spans a switch
 * keeps them.
 *
 * A donor must not touch its block while a core uses it: it blocks every
 * signal it may block and sleeps in raw system calls that write no errno.
 * glibc's two internal signals (SIGCANCEL, SIGSETXID) cannot be blocked
 * through glibc, and a blocked SIGSETXID would hang setuid() for ever:
 * they stay open, so pthread_cancel of a core and setuid() during a
 * section are not supported (README, "Schedulers").
 *
 * One slot of every block belongs to the OS thread, not to the core: the
 * Go runtime's g (capi/gslot), which tells Go which of its Ms runs.
 * tls_switch copies it from the block being left into the one entered, so
 * Go code called from a core finds its worker's M.
 */
#define _GNU_SOURCE
#include "coro_tls.h"
#include "futex.h"
#include "scheduler.h"

#include <asm/prctl.h>
#include <limits.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/syscall.h>

#if defined(__x86_64__)

#ifndef HWCAP2_FSGSBASE
#define HWCAP2_FSGSBASE (1 << 1)
#endif

/* The kept slot's offset from the thread pointer, and whether there is one. */
static long kept_offset;
static int kept;

void sched_keep_thread_slot(long offset)
{
    kept_offset = offset;
    kept = 1;
}

/* The kernel lets user code write the FS base: read by tls_donors_start,
 * before the first switch. */
static int fsgsbase;

static void set_fs(void *tp)
{
    if (fsgsbase)
        __asm__ volatile("wrfsbase %0" ::"r"(tp) : "memory");
    else
        raw_syscall4(SYS_arch_prctl, ARCH_SET_FS, (long)tp, 0, 0);
}

void tls_slot_store(void *tp, uintptr_t value)
{
    if (kept)
        *(uintptr_t *)((char *)tp + kept_offset) = value;
}

uintptr_t tls_slot_load(void *tp)
{
    return kept ? *(uintptr_t *)((char *)tp + kept_offset) : 0;
}

void tls_switch(void *tp)
{
    void *from = tls_pointer();
    if (tp == from)
        return;
    /* the slot first: a signal handled between the two sees a valid g */
    tls_slot_store(tp, tls_slot_load(from));
    set_fs(tp);
}

void tls_block_signals(uint64_t *old)
{
    uint64_t all = ~(uint64_t)0;
    raw_syscall4(SYS_rt_sigprocmask, SIG_SETMASK, (long)&all, (long)old, sizeof all);
}

void tls_restore_signals(const uint64_t *old)
{
    raw_syscall4(SYS_rt_sigprocmask, SIG_SETMASK, (long)old, 0, sizeof *old);
}

/* A start of donors: each counts itself ready, then sleeps on release. */
static struct {
    struct tls_donor *donors;
    void (*set_up)(int i, void *arg);
    void *arg;
    _Atomic unsigned ready;
    _Atomic unsigned release;
} start;

static void *donor_main(void *p)
{
    /* glibc's own two signals stay open: see the top of the file */
    uint64_t mask = ~(uint64_t)0 & ~(1ull << (32 - 1)) & ~(1ull << (33 - 1));
    raw_syscall4(SYS_rt_sigprocmask, SIG_SETMASK, (long)&mask, 0, sizeof mask);
    int i = (int)(intptr_t)p;
    start.donors[i].tp = tls_pointer();
    start.set_up(i, start.arg);
    atomic_fetch_add(&start.ready, 1);
    futex_wake_quiet(&start.ready, INT_MAX);
    futex_wait_quiet(&start.release, 0);
    return NULL;
}

/* glibc's smallest stack for a thread, its static TLS included. */
extern size_t __pthread_get_minstack(const pthread_attr_t *attr) __attribute__((weak));

/* A donor's stack: it only sleeps, and runs its TLS destructors at exit. */
enum { DONOR_STACK = 64 * 1024 };

int tls_donors_start(struct tls_donor *donors, int n, void (*set_up)(int i, void *arg), void *arg)
{
    fsgsbase = (getauxval(AT_HWCAP2) & HWCAP2_FSGSBASE) != 0;
    start.donors = donors;
    start.set_up = set_up;
    start.arg = arg;
    atomic_store(&start.ready, 0);
    atomic_store(&start.release, 0);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    size_t stack = DONOR_STACK + (__pthread_get_minstack ? __pthread_get_minstack(&attr) : PTHREAD_STACK_MIN);
    pthread_attr_setstacksize(&attr, stack);
    int i = 0;
    for (; i < n; i++)
        if (pthread_create(&donors[i].thread, &attr, donor_main, (void *)(intptr_t)i) != 0)
            break;
    pthread_attr_destroy(&attr);
    unsigned r;
    while ((r = atomic_load(&start.ready)) < (unsigned)i)
        futex_wait_quiet(&start.ready, r);
    if (i < n) {
        tls_donors_end(donors, i);
        return -1;
    }
    return 0;
}

void tls_donors_end(struct tls_donor *donors, int n)
{
    atomic_store(&start.release, 1);
    futex_wake_quiet(&start.release, INT_MAX);
    for (int i = 0; i < n; i++)
        pthread_join(donors[i].thread, NULL);
}

#else /* no coroutines here (sched_coro.c): nothing to keep */

void sched_keep_thread_slot(long offset)
{
    (void)offset;
}

#endif
