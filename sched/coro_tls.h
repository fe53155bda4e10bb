/*
 * Thread identity for coroutine cores (coro_tls.c): each core has a
 * thread control block of its own, and whoever runs the core points the
 * thread pointer (the FS base on x86-64) at it. The C library and the
 * program then see the core as a thread of its own: its __thread and
 * _Thread_local variables, errno, pthread_self(), pthread keys, locale,
 * malloc's per-thread caches. Only for the coroutine scheduler
 * (coro_internal.h).
 */
#ifndef EBSP_CORO_TLS_H
#define EBSP_CORO_TLS_H

#include <pthread.h>
#include <stdint.h>

/* The calling context's thread pointer. */
static inline void *tls_pointer(void)
{
    return __builtin_thread_pointer();
}

/* Points the thread pointer at tp (the control block of a thread of this
 * process, or a core's donor): wrfsbase where the kernel allows it, one
 * system call otherwise. The slot that belongs to the OS thread
 * (sched_keep_thread_slot) is copied from the current block first. */
void tls_switch(void *tp);

/* Writes value into tp's kept slot (no-op without one); reads it. */
void tls_slot_store(void *tp, uintptr_t value);
uintptr_t tls_slot_load(void *tp);

/* A donor: a thread that lends its control block to a core and sleeps,
 * with every signal blocked, until released. It waits with futex.h's
 * quiet calls, which touch no TLS. */
struct tls_donor {
    pthread_t thread;
    void *tp;
};

/* Starts n donors; set_up(i, arg) runs on donor i, in its own TLS, before
 * it sleeps (it sets the core's TLS up). Returns 0, or -1 when a thread
 * could not be started (none is left running). */
int tls_donors_start(struct tls_donor *donors, int n, void (*set_up)(int i, void *arg), void *arg);
/* Wakes the n donors and waits for them to exit: their TLS destructors
 * (pthread keys, C++ thread_local) run on them, as when a thread ends. */
void tls_donors_end(struct tls_donor *donors, int n);

/* Blocks every signal of the calling thread, or restores *old; no errno
 * write (the control block may be in use elsewhere meanwhile). */
void tls_block_signals(uint64_t *old);
void tls_restore_signals(const uint64_t *old);

#endif
