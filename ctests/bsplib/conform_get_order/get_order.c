/*
 * BSPlib conformance: gets whose destinations overlap land in the order
 * of issue, the last one winning, whichever cores they read from and in
 * whatever order of pids: in one process, under strict checks, and under
 * mpirun where some sources share the getting core's rank and some do
 * not; and when some of a core's gets take the C path's direct log and
 * some the engine's (mixed). Every core checks its own destination
 * against the order of issue and prints "$PP: name: ok" (or the first
 * wrong word).
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include <bsp.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

enum { WORDS = 64 }; /* each core's variable, and each destination */

/* the word i of core pid's variable */
static int word_of(int pid, int i)
{
    return 1000 * (pid + 1) + i;
}

/* A pattern of gets: the k-th of n reads from core src(k) at offset
 * from(k) into the destination at to(k), len(k) words. */
struct pattern {
    const char *name;
    int n;
    int (*src)(int k, int s, int p);
    int (*from)(int k);
    int (*to)(int k);
    int (*len)(int k);
};

/* every core, the highest pid first, each a shorter run inside the last */
static int down_src(int k, int s, int p) { (void)s; return p - 1 - k % p; }
static int down_from(int k) { return k; }
static int down_to(int k) { return k; }
static int down_len(int k) { return 2 * (8 - k); }

/* a stride that crosses ranks back and forth, runs of 3 to 9 words */
static int stride_src(int k, int s, int p) { return (s + 3 * k + 1) % p; }
static int stride_from(int k) { return (5 * k) % 17; }
static int stride_to(int k) { return (7 * k) % 23; }
static int stride_len(int k) { return 3 + (k * 5) % 7; }

/* runs that join (each right after the last, from the same core) broken
 * by a get from another core over the same words */
static int join_src(int k, int s, int p) { return k % 3 == 2 ? (s + 1) % p : (s + p - 1) % p; }
static int join_from(int k) { return 2 * k; }
static int join_to(int k) { return k % 3 == 2 ? 2 * k - 3 : 2 * k; }
static int join_len(int k) { return k % 3 == 2 ? 4 : 2; }

static const struct pattern patterns[] = {
    {"down", 8, down_src, down_from, down_to, down_len},
    {"stride", 24, stride_src, stride_from, stride_to, stride_len},
    {"join", 18, join_src, join_from, join_to, join_len},
};

static void report(const char *name, const int *dst, const int *want, int n)
{
    int bad = -1;
    for (int i = 0; i < n && bad < 0; i++)
        if (dst[i] != want[i])
            bad = i;
    if (bad < 0)
        printf("$%02d: %s: ok\n", (int)bsp_pid(), name);
    else
        printf("$%02d: %s: word %d is %d, want %d\n", (int)bsp_pid(), name, bad, dst[bad], want[bad]);
}

static void run(const struct pattern *pat, int *var, int *dst)
{
    int s = (int)bsp_pid(), p = (int)bsp_nprocs();
    int want[WORDS];
    for (int i = 0; i < WORDS; i++)
        dst[i] = want[i] = -1;
    for (int k = 0; k < pat->n; k++) {
        int src = pat->src(k, s, p), from = pat->from(k), to = pat->to(k), len = pat->len(k);
        bsp_get(src, var, from * sizeof(int), &dst[to], len * sizeof(int));
        for (int i = 0; i < len; i++)
            want[to + i] = word_of(src, from + i);
    }
    bsp_sync();
    report(pat->name, dst, want, WORDS);
}

/* mixed: a get from this core's own variable while no byte of it can be
 * read (a get reads its source at the sync, when it can again: the direct
 * log, which looks at the source at the call, leaves it to the engine),
 * then a get from the next core into the same words, which the direct log
 * takes: the second lands last. page is a registered page of WORDS ints. */
static void run_mixed(int *page)
{
    int s = (int)bsp_pid(), p = (int)bsp_nprocs(), next = (s + 1) % p;
    int dst[WORDS], want[WORDS];
    for (int i = 0; i < WORDS; i++) {
        dst[i] = -1;
        want[i] = i < 16 ? word_of(next, i) : -1;
    }
    if (mprotect(page, 4096, PROT_NONE) != 0)
        bsp_abort("mprotect failed\n");
    bsp_get(s, page, 0, dst, 16 * sizeof(int));
    bsp_get(next, page, 0, dst, 16 * sizeof(int));
    if (mprotect(page, 4096, PROT_READ | PROT_WRITE) != 0)
        bsp_abort("mprotect failed\n");
    bsp_sync();
    report("mixed", dst, want, WORDS);
}

static void spmd(void)
{
    bsp_begin(bsp_nprocs());
    int *var = malloc(WORDS * sizeof *var), *dst = malloc(WORDS * sizeof *dst);
    if (!var || !dst)
        bsp_abort("out of memory\n");
    for (int i = 0; i < WORDS; i++)
        var[i] = word_of((int)bsp_pid(), i);
    bsp_push_reg(var, WORDS * sizeof *var);
    bsp_sync();
    for (size_t i = 0; i < sizeof patterns / sizeof patterns[0]; i++)
        run(&patterns[i], var, dst);
    bsp_pop_reg(var);
    int *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (page == MAP_FAILED)
        bsp_abort("out of memory\n");
    for (int i = 0; i < WORDS; i++)
        page[i] = word_of((int)bsp_pid(), i);
    bsp_push_reg(page, WORDS * sizeof *page);
    bsp_sync();
    run_mixed(page);
    bsp_pop_reg(page);
    bsp_sync();
    munmap(page, 4096);
    free(var);
    free(dst);
    bsp_end();
}

int main(int argc, char **argv)
{
    bsp_init(spmd, argc, argv);
    spmd();
    return 0;
}
