/*
 * Output goes through C stdio so that core lines interleave with the host's
 * own printf exactly as on the board (Go's os.Stdout would bypass the C
 * buffer and reorder lines).
 */
#include "shim.h"

#include <stdio.h>

void out_core_line(int pid, const char *text)
{
    if (pid < 0)
        printf("$host: %s\n", text);
    else
        printf("$%02d: %s\n", pid, text);
}

void out_stdout(const char *text)
{
    fputs(text, stdout);
}

void out_stderr(const char *text)
{
    fflush(stdout);
    fputs(text, stderr);
}

void out_flush(void)
{
    fflush(stdout);
}

/* The scheduler's own messages (a run that could not start its cores). */
static const struct sched_hooks output_hooks = {.message = out_stderr};

__attribute__((constructor)) static void output_register(void)
{
    sched_add_hooks(&output_hooks);
}
