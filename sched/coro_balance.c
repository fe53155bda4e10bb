/*
 * The coroutine scheduler's monitor (coro_internal.h), a thread that looks
 * at the workers every tick: it starts one more worker when every worker
 * has run the same core for a while and cores wait (a core that spins on
 * memory another core writes), and it decides whether the cores run on
 * one worker or spread (below).
 */
#define _GNU_SOURCE
#include "coro_internal.h"

#include <limits.h>
#include <string.h>
#include <time.h>

#if CORO_SUPPORTED

/* Monitor period and how many periods without a switch make a worker stuck. */
enum { MONITOR_TICK_US = 1000, MONITOR_STUCK_TICKS = 3 };

/*
 * Resting workers. Cores spread over two CPUs pay for every barrier with
 * cache lines moved between them: on the 2-vCPU VM of 2026-11-25 an empty
 * sync took 0.17 us at P=2, 1.1 us at 16 and 5.5 us at 64 on one worker,
 * against 0.89, 2.5 and 8.5 us on two; a superstep with work in it goes
 * nearly twice as fast on two. Which is better cannot be told from the
 * workers' busy time (spread, they are busy with the misses), so the
 * monitor tries: over windows of BALANCE_TICKS ticks it counts barrier
 * rounds (coro_count_rounds) and, every few windows, runs one window the
 * other way, all cores on the first worker (the others rest, and it serves
 * their queues) or spread again; the way that made BALANCE_WIN times more
 * rounds stays. A try that lost doubles the windows until the next one (up
 * to BALANCE_MAX_BACKOFF), one that won resets them, and so does a window
 * whose rate differs from the last one of its way by BALANCE_CHANGE times
 * (the program changed phase). Rounds longer than BALANCE_MAX_ROUND_NS
 * spread the cores and stop the tries: a barrier costs a few microseconds
 * more spread, and such rounds have work that two CPUs do in half the
 * time; so does a tick without a round while resting (a phase of
 * messages or compute began). The cores' steps between barriers
 * (coro_progress: LQCD and QMP waits that ended) count as rounds too, n
 * steps a round: a 16-core halo exchange of 8 bytes, which has none, took
 * 5 times the CPU time spread as on one worker (cores on one worker
 * waiting for cores on the other, idle spins and wakes), and a loaded
 * machine's time with it. A worker stuck on one core while cores wait
 * wakes the resting workers at once, before the monitor adds one.
 */
enum { BALANCE_TICKS = 8, BALANCE_MAX_ROUND_NS = 20000, BALANCE_MIN_BACKOFF = 2, BALANCE_MAX_BACKOFF = 16 };
/* The same for rounds of steps: the messages of a 16-core halo exchange of
 * 8 bytes to 1 KiB make rounds of 10-40 us, faster on one worker; of
 * 64 KiB, rounds of milliseconds of copying, which two CPUs share. */
enum { BALANCE_MAX_STEP_ROUND_NS = 200000 };
#define BALANCE_WIN 1.1
#define BALANCE_CHANGE 1.5

/* The monitor's view of the windows (see "Resting workers"). */
struct balance {
    uint64_t since;            /* the window's start */
    unsigned rounds;           /* *co.rounds at the window's start */
    unsigned tick_rounds;      /* *co.rounds at the last tick */
    unsigned long steps, tick_steps; /* steps_made at the window's start, the last tick */
    int ticks;
    double rate[2];            /* rounds per ns, last measured resting [0] and spread [1] */
    int probing;               /* this window tries the other way */
    int backoff, left;         /* windows between tries, and until the next */
};

/* The cores' steps between barriers (coro_progress). */
static unsigned long steps_made(void)
{
    unsigned long steps = 0; /* of the first workers: the others' slots are reused */
    for (int i = 0; i < co.base_workers; i++)
        steps += atomic_load_explicit(&co.workers[i].steps, memory_order_relaxed);
    return steps;
}

/* The barrier's rounds and, as rounds of n steps each, the steps. */
static unsigned rounds_of(unsigned long steps)
{
    return atomic_load(co.rounds) + (unsigned)(steps / (unsigned long)co.n);
}

void coro_progress(void)
{
    struct coro *c = current_coro();
    if (!c)
        return;
    struct worker *w = c->worker;
    atomic_store_explicit(&w->steps, atomic_load_explicit(&w->steps, memory_order_relaxed) + 1, memory_order_relaxed);
}

/* Rates a and b differ by more than BALANCE_CHANGE times. */
static int changed(double a, double b)
{
    return a > BALANCE_CHANGE * b || b > BALANCE_CHANGE * a;
}

static void set_resting(int resting)
{
    if (!resting)
        wake_resting();
    else if (atomic_load(&co.active) != 1)
        atomic_store(&co.active, 1);
}

/* Starts a new window, spread, trying to rest again soon. */
static void spread_again(struct balance *b, uint64_t now, unsigned rounds, unsigned long steps)
{
    set_resting(0);
    b->since = now;
    b->rounds = rounds;
    b->steps = steps;
    b->ticks = 0;
    b->probing = 0;
    b->backoff = b->left = BALANCE_MIN_BACKOFF;
}

/* Every tick: a resting run that made no round nor step in a tick has
 * long rounds (waits for messages, compute) and spreads at once. Once a
 * window: keeps the way (resting or spread) that made more rounds. A
 * window of steps is a phase of messages, whose rounds may be longer than
 * a superstep's and still faster on one worker (cores that wait for each
 * other across CPUs): their own limit, BALANCE_MAX_STEP_ROUND_NS. */
static void balance(struct balance *b)
{
    unsigned long steps = steps_made();
    unsigned rounds = rounds_of(steps);
    uint64_t now = ebsp_now_ns();
    int still = rounds == b->tick_rounds && steps == b->tick_steps;
    b->tick_rounds = rounds;
    b->tick_steps = steps;
    if (co.rest_always) {
        if (++b->ticks >= BALANCE_TICKS) {
            b->ticks = 0;
            set_resting(1);
        }
        return;
    }
    if (still && atomic_load(&co.active) == 1) {
        spread_again(b, now, rounds, steps);
        return;
    }
    if (++b->ticks < BALANCE_TICKS)
        return;
    b->ticks = 0;
    double window = (double)(now - b->since), made = (double)(rounds - b->rounds);
    int stepped = steps != b->steps;
    b->since = now;
    b->rounds = rounds;
    b->steps = steps;
    int spread = atomic_load(&co.active) > 1;
    if (window <= 0 || made * (stepped ? BALANCE_MAX_STEP_ROUND_NS : BALANCE_MAX_ROUND_NS) < window) {
        /* long rounds: what the barriers cost does not matter, the CPUs do */
        spread_again(b, now, rounds, steps);
        return;
    }
    double rate = made / window;
    if (!b->probing && changed(rate, b->rate[spread])) {
        b->backoff = BALANCE_MIN_BACKOFF; /* another phase of the program: try soon */
        if (b->left > 1)
            b->left = 1;
    }
    b->rate[spread] = rate;
    if (b->probing) {
        b->probing = 0;
        if (b->rate[spread] > BALANCE_WIN * b->rate[!spread]) {
            b->backoff = BALANCE_MIN_BACKOFF; /* the try won: stay */
        } else {
            set_resting(spread); /* back */
            b->backoff = b->backoff * 2 > BALANCE_MAX_BACKOFF ? BALANCE_MAX_BACKOFF : b->backoff * 2;
        }
        b->left = b->backoff;
        return;
    }
    if (--b->left <= 0) {
        set_resting(spread);
        b->probing = 1;
    }
}

void *monitor_main(void *arg)
{
    (void)arg;
    unsigned long last[co.max_workers > 0 ? co.max_workers : 1];
    int still[co.max_workers > 0 ? co.max_workers : 1];
    memset(still, 0, sizeof still);
    for (int i = 0; i < co.max_workers; i++)
        last[i] = ~0ul;
    struct balance b = {.since = ebsp_now_ns(), .backoff = BALANCE_MIN_BACKOFF, .left = BALANCE_MIN_BACKOFF};
    if (co.rounds) {
        b.steps = b.tick_steps = steps_made();
        b.rounds = b.tick_rounds = rounds_of(b.steps);
    }
    struct timespec tick = {0, MONITOR_TICK_US * 1000L};
    while (!atomic_load(&co.monitor_stop)) {
        nanosleep(&tick, NULL);
        int nw = atomic_load(&co.nworkers);
        int all_stuck = nw > 0;
        unsigned active = atomic_load(&co.active);
        for (int i = 0; i < nw; i++) {
            struct worker *w = &co.workers[i];
            if ((i < co.base_workers && (unsigned)i >= active) || atomic_load(&w->state) != W_RUNNING) {
                still[i] = 0;
                last[i] = ~0ul;
                continue;
            }
            unsigned long s = atomic_load(&w->switches);
            if (atomic_load(&w->cur) == NULL || s != last[i])
                still[i] = 0;
            else
                still[i]++;
            last[i] = s;
            if (still[i] < MONITOR_STUCK_TICKS)
                all_stuck = 0;
        }
        if (all_stuck && queued_total() > 0 && atomic_load(&co.idle) == 0) {
            if (active < (unsigned)co.base_workers)
                wake_resting();
            else
                start_worker();
        }
        if (co.may_rest && co.rounds)
            balance(&b);
        if (atomic_load(&co.timed) > 0)
            coro_wake_parked(); /* their callers look at the clock */
        /* cores woken while their worker runs on: visible to the others */
        if (unpark_all())
            kick(INT_MAX);
    }
    return NULL;
}

#endif /* CORO_SUPPORTED */
