/*
 * The wait for another core's registration (core.h, reg_wait_again): an
 * event count that registrations pushed and new waiters raise, waited on
 * with the scheduler's one wait primitive (sched_wait).
 */
#include "shim.h"

#include <stdatomic.h>

/* How long a waiting core sleeps before it looks again without being
 * woken (reg_wait_sleep). */
enum { REG_WAIT_NS = 1000000 };

/* The cores waiting, and the word that pushes and new waits raise while
 * any core waits: a line of their own, apart from the scheduler's. */
static struct {
    _Atomic int waiters;
    _Atomic unsigned events;
} reg __attribute__((aligned(64)));

/* Wakes the cores waiting for a registration. */
static void reg_event(void)
{
    atomic_fetch_add(&reg.events, 1);
    sched_wake(&reg.events, -1);
}

/* A waiter counts itself before it reads reg.events and asks the engine,
 * a pusher publishes its registration before it reads reg.waiters: either
 * the waiter's question sees the push or the pusher sees the waiter. */
void reg_wait_begin(void)
{
    if (atomic_fetch_add(&reg.waiters, 1) > 0)
        reg_event();
}

void reg_wait_end(void)
{
    atomic_fetch_sub(&reg.waiters, 1);
}

unsigned reg_events(void)
{
    return atomic_load(&reg.events);
}

void reg_pushed(void)
{
    if (atomic_load(&reg.waiters) > 0)
        reg_event();
}

/* A stopped run wakes the waiter too: sched_wait returns on a core once
 * the run stops, at the latest after its slice. */
void reg_wait_sleep(unsigned seen)
{
    sched_wait(&reg.events, seen, REG_WAIT_NS);
}

/* Each run starts with no waiter, as a stopped run may have left one
 * counted. */
static void reg_run_begin(int n)
{
    (void)n;
    atomic_store(&reg.waiters, 0);
}

static const struct sched_hooks reg_hooks = {.run_begin = reg_run_begin};

__attribute__((constructor)) static void reg_register(void)
{
    sched_add_hooks(&reg_hooks);
}
