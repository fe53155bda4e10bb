/*
 * The C library as a kernel instance sees it. On the board each core
 * linked its own newlib, so rand() and strtok() kept their state per core,
 * and rand() was newlib's generator. Here every instance calls the host's
 * one C library, whose hidden state all cores would share (one random
 * sequence for all cores together, glibc's numbers). So after loading an
 * instance, the loader points the instance's references to rand, srand
 * and strtok (its GOT entries) at the versions below, which keep their
 * state in the calling core; and exit at one that says which core ended
 * the program (got_bind.c binds them; _exit and its kin: faults.c).
 */
#define _GNU_SOURCE
#include "shim.h"
#include "got_bind.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* rand: newlib's generator, Knuth's 64-bit linear congruence (The Art of
 * Computer Programming vol. 2, 3rd ed., p. 106), its high word returned;
 * the state starts at 1 and srand sets it. */
static uint64_t host_rand_next = 1;
static char *host_strtok_last;

static uint64_t *rand_state(void)
{
    struct ebsp_core *self = ebsp_self;
    return self ? &self->own->rand_next : &host_rand_next;
}

static int core_rand(void)
{
    uint64_t *next = rand_state();
    *next = *next * 6364136223846793005ull + 1;
    return (int)((*next >> 32) & 0x7fffffff);
}

static void core_srand(unsigned seed)
{
    *rand_state() = seed;
}

static char *core_strtok(char *s, const char *delim)
{
    struct ebsp_core *self = ebsp_self;
    return strtok_r(s, delim, self ? &self->own->strtok_last : &host_strtok_last);
}

/* exit: on the board newlib's exit halted the calling core and the host
 * waited for its bsp_end for ever; here it ends the host's process, which
 * would vanish without a word, so the core and its superstep are named. */
static void core_exit(int status)
{
    struct ebsp_core *self = ebsp_self;
    if (self) {
        char line[256];
        snprintf(line, sizeof line,
                 "ebsp: ERROR: core %02d called exit(%d) in superstep %d, which ends the host program "
                 "(on the board the core stopped there and the host waited for it for ever)\n",
                 self->pid, status, (int)atomic_load((_Atomic int32_t *)&self->superstep));
        out_stderr(line);
    }
    exit(status);
}

static const struct got_binding hooks[] = {
    {"rand", (void *)core_rand}, {"srand", (void *)core_srand}, {"strtok", (void *)core_strtok}, {"exit", (void *)core_exit}};

void kernel_libc_hook(void *instance)
{
    got_bind(instance, hooks, sizeof hooks / sizeof hooks[0]);
    faults_bind_exits(instance);
}
