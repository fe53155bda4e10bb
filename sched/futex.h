/*
 * Futex calls on a 32-bit word shared by the threads of this process, for
 * every file that sleeps on one (the scheduler's waits and barrier, the
 * coroutine workers). Private futexes: the words never leave the process.
 * Also what a waiter needs that spins before it sleeps: the pause of a
 * spin, and the CPU count that says whether spinning can pay.
 */
#ifndef EBSP_FUTEX_H
#define EBSP_FUTEX_H

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* One step of a spin-wait loop. */
static inline void cpu_relax(void)
{
#if defined(__i386__) || defined(__x86_64__)
    __builtin_ia32_pause();
#endif
}

/* Processes of one job that share this machine's CPUs (ranks of an MPI
 * job on one node; scheduler.h). */
extern int ebsp_cpu_sharers;

/* This process's share of the CPUs online, at least 1: a job's ranks on
 * one machine each spin and start workers for their share only, or they
 * take the CPUs from each other (2 ranks x 8 cores on 2 CPUs: an empty
 * sync 128-1716 us with a worker per CPU in each rank, 2.3-16 us with one). */
static inline long cpu_count(void)
{
    static _Atomic long cpus; /* online, read once per file that asks */
    long n = atomic_load(&cpus);
    if (n == 0) {
        n = sysconf(_SC_NPROCESSORS_ONLN);
        if (n < 1)
            n = 1;
        atomic_store(&cpus, n);
    }
    long share = ebsp_cpu_sharers > 1 ? n / ebsp_cpu_sharers : n;
    return share < 1 ? 1 : share;
}

/* The waits and wakes below keep errno: they run inside the program's
 * calls (bsp_sync), and a program may read errno across them, as across
 * the pure computation a superstep is to it (EAGAIN, EINTR and ETIMEDOUT
 * are a waiter's normal returns). */

/* Sleeps while *word == expected, until woken (or a spurious return). */
static inline void futex_wait(_Atomic unsigned *word, unsigned expected)
{
    int saved = errno;
    syscall(SYS_futex, (unsigned *)word, FUTEX_WAIT_PRIVATE, expected, NULL, NULL, 0);
    errno = saved;
}

/* Sleeps while *word == expected, for at most ns nanoseconds. */
static inline void futex_wait_ns(_Atomic unsigned *word, unsigned expected, uint64_t ns)
{
    struct timespec ts = {.tv_sec = (time_t)(ns / 1000000000u), .tv_nsec = (long)(ns % 1000000000u)};
    int saved = errno;
    syscall(SYS_futex, (unsigned *)word, FUTEX_WAIT_PRIVATE, expected, &ts, NULL, 0);
    errno = saved;
}

#if defined(__x86_64__)
/* A system call that writes no errno: for threads that sleep while their
 * thread control block, errno included, is in use by a coroutine core
 * elsewhere (sched/coro_tls.c). Returns the kernel's -errno on failure. */
static inline long raw_syscall4(long nr, long a, long b, long c, long d)
{
    long ret;
    register long r10 __asm__("r10") = d;
    __asm__ volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10) : "rcx", "r11", "memory");
    return ret;
}

/* futex_wait and futex_wake for such threads: no errno, no TLS at all.
 * This wait returns only once *word != expected. */
static inline void futex_wait_quiet(_Atomic unsigned *word, unsigned expected)
{
    while (atomic_load(word) == expected)
        raw_syscall4(SYS_futex, (long)word, FUTEX_WAIT_PRIVATE, expected, 0);
}

static inline void futex_wake_quiet(_Atomic unsigned *word, int n)
{
    raw_syscall4(SYS_futex, (long)word, FUTEX_WAKE_PRIVATE, n, 0);
}
#endif

/* Wakes up to n sleepers on word (INT_MAX: all). */
static inline void futex_wake(_Atomic unsigned *word, int n)
{
    int saved = errno;
    syscall(SYS_futex, (unsigned *)word, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
    errno = saved;
}

#endif
