/*
 * The run hooks of scheduler.h: a fixed table filled at library load, before
 * any run, and only read afterwards (no lock).
 */
#include "scheduler.h"

enum { MAX_HOOKS = 16 };

static const struct sched_hooks *table[MAX_HOOKS];
static int count;

/* The hooks of every barrier, settle and round, apart: a barrier calls
 * the few there are instead of looking at every table entry (an empty
 * bsp_sync at 16 cores spent 72 of its ~585 instructions per core in
 * hooks_settle's look at 8 entries for its 1 hook). */
static void (*settles[MAX_HOOKS])(struct sched_core *core);
static int (*rounds[MAX_HOOKS])(int kind);
static int nsettles, nrounds;

int sched_add_hooks(const struct sched_hooks *hooks)
{
    if (count == MAX_HOOKS)
        return -1;
    table[count++] = hooks;
    if (hooks->settle)
        settles[nsettles++] = hooks->settle;
    if (hooks->round)
        rounds[nrounds++] = hooks->round;
    return 0;
}

void hooks_prepare(void)
{
    for (int i = 0; i < count; i++)
        if (table[i]->prepare)
            table[i]->prepare();
}

void hooks_run_begin(int n)
{
    for (int i = 0; i < count; i++)
        if (table[i]->run_begin)
            table[i]->run_begin(n);
}

void hooks_run_end(void)
{
    for (int i = 0; i < count; i++)
        if (table[i]->run_end)
            table[i]->run_end();
}

void hooks_core_begin(struct sched_core *core)
{
    for (int i = 0; i < count; i++)
        if (table[i]->core_begin)
            table[i]->core_begin(core);
}

void hooks_settle(struct sched_core *core)
{
    for (int i = 0; i < nsettles; i++)
        settles[i](core);
}

void hooks_thread_begin(void)
{
    for (int i = 0; i < count; i++)
        if (table[i]->thread_begin)
            table[i]->thread_begin();
}

void hooks_thread_end(void)
{
    for (int i = count - 1; i >= 0; i--)
        if (table[i]->thread_end)
            table[i]->thread_end();
}

void hooks_interrupt(struct sched_core *core)
{
    for (int i = 0; i < count; i++)
        if (table[i]->interrupt)
            table[i]->interrupt(core);
}

void hooks_allow_interrupt(void)
{
    for (int i = 0; i < count; i++)
        if (table[i]->allow_interrupt)
            table[i]->allow_interrupt();
}

void hooks_host_call(void (*fn)(void), const char *what)
{
    for (int i = 0; i < count; i++)
        if (table[i]->host_call) {
            table[i]->host_call(fn, what);
            return;
        }
    fn();
}

void hooks_report_stall(int kind)
{
    for (int i = 0; i < count; i++)
        if (table[i]->report_stall)
            table[i]->report_stall(kind);
}

void hooks_message(const char *text)
{
    for (int i = 0; i < count; i++)
        if (table[i]->message)
            table[i]->message(text);
}

int hooks_round(int kind)
{
    for (int i = 0; i < nrounds; i++)
        if (rounds[i](kind) != 0)
            return -1;
    return 0;
}
