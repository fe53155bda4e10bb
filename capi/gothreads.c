/*
 * The worker threads of the coroutine scheduler and Go (gothreads.go).
 */
#include "shim.h"

static const struct sched_hooks go_thread_hooks = {.thread_begin = goThreadEnter};

void go_threads_register(void)
{
    sched_add_hooks(&go_thread_hooks);
}
