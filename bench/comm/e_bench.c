/* The communication benchmark kernel. Parameters come down from the host;
 * core 0 measures wall-clock time (all cores start each measurement
 * together, after a sync) and sends the results up. */
#define _GNU_SOURCE
#include <e_bsp.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"

static double now(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double wall(void) { return now(CLOCK_MONOTONIC); }

static struct bench_params par;
static double res[BENCH_RESULTS];
static long long *words;   /* WORDS_MAX words, registered */
static char *blocks;       /* BLOCKS blocks of BLOCK bytes, registered */

static double empty_syncs(void)
{
    bsp_sync();
    double t0 = wall();
    for (int i = 0; i < par.syncs; i++)
        bsp_sync();
    return (wall() - t0) / par.syncs;
}

/* An h-relation of 8-byte words: word i goes to core i % p. Returns
 * seconds per superstep, the sync included. */
static double word_relation(int hp)
{
    int p = bsp_nprocs(), s = bsp_pid();
    long long v = s;
    bsp_sync();
    double t0 = wall();
    for (int r = 0; r < par.reps; r++) {
        for (int i = 0; i < par.words; i++) {
            int dst = (i + s) % p;
            int slot = (i / p) * p + s; /* distinct per source */
            if (hp)
                bsp_hpput(dst, &v, words, slot * 8 % (WORDS_MAX * 8), 8);
            else
                bsp_put(dst, &v, words, slot * 8 % (WORDS_MAX * 8), 8);
        }
        if (hp)
            ebsp_barrier();
        bsp_sync();
    }
    return (wall() - t0) / par.reps;
}

/* Every core writes one block of BLOCK bytes to each of BLOCKS cores. */
static double block_relation(int hp, char *src)
{
    int p = bsp_nprocs(), s = bsp_pid();
    int k = p < BLOCKS ? p : BLOCKS;
    bsp_sync();
    double t0 = wall();
    for (int r = 0; r < par.reps; r++) {
        for (int j = 0; j < k; j++) {
            int dst = (s + j) % p;
            if (hp)
                bsp_hpput(dst, src, blocks, j * BLOCK, BLOCK);
            else
                bsp_put(dst, src, blocks, j * BLOCK, BLOCK);
        }
        if (hp)
            ebsp_barrier();
        bsp_sync();
    }
    double t = (wall() - t0) / par.reps;
    return (double)p * k * BLOCK / t / 1e9;
}

static double messages(void)
{
    int p = bsp_nprocs(), s = bsp_pid();
    char payload[16];
    memset(payload, s, sizeof payload);
    bsp_sync();
    double t0 = wall();
    for (int r = 0; r < par.reps; r++) {
        for (int i = 0; i < par.msgs; i++)
            bsp_send((i + s) % p, &i, payload, sizeof payload);
        bsp_sync();
        void *tag, *data;
        while (bsp_hpmove(&tag, &data) >= 0)
            ;
    }
    double t = (wall() - t0) / par.reps;
    return (double)p * par.msgs / t;
}

/* CPU time of one bsp_put call on this core's thread (not wall time, which
 * grows with the number of cores sharing the CPUs). */
static double put_call(void)
{
    long long v = 1;
    bsp_sync();
    double t0 = now(CLOCK_THREAD_CPUTIME_ID);
    for (int i = 0; i < par.calls; i++)
        bsp_put(bsp_pid(), &v, words, (i % WORDS_MAX) * 8, 8);
    double t = now(CLOCK_THREAD_CPUTIME_ID) - t0;
    bsp_sync();
    return t / par.calls;
}

/* Like put_call, in supersteps of PUT_BATCH calls, the syncs not timed:
 * the cost at the call when the request parsing waits for the sync (the
 * shim's request log holds a batch), while put_call also counts the
 * parsing of one long superstep. */
enum { PUT_BATCH = 4096 };
static double put_call_batched(void)
{
    long long v = 1;
    double t = 0;
    bsp_sync();
    for (int done = 0; done < par.calls; done += PUT_BATCH) {
        double t0 = now(CLOCK_THREAD_CPUTIME_ID);
        for (int i = 0; i < PUT_BATCH; i++)
            bsp_put(bsp_pid(), &v, words, (i % WORDS_MAX) * 8, 8);
        t += now(CLOCK_THREAD_CPUTIME_ID) - t0;
        bsp_sync();
    }
    return t / (par.calls / PUT_BATCH * PUT_BATCH);
}

int main(void)
{
    bsp_begin();
    int status, tag;
    bsp_get_tag(&status, &tag);
    bsp_move(&par, sizeof par);
    words = calloc(WORDS_MAX, sizeof *words);
    blocks = calloc(BLOCKS, BLOCK);
    char *src = calloc(1, BLOCK);
    bsp_push_reg(words, WORDS_MAX * (int)sizeof *words);
    bsp_push_reg(blocks, BLOCKS * BLOCK);
    bsp_sync();

    memset(res, 0, sizeof res);
    if (par.only_put_call) {
        res[R_PUT_CALL] = put_call();
        res[R_PUT_CALL_BATCH] = put_call_batched();
    } else {
        res[R_SYNC] = empty_syncs();
        double empty = res[R_SYNC];
        res[R_PUT_G] = (word_relation(0) - empty) / par.words;
        res[R_HPPUT_G] = (word_relation(1) - empty) / par.words;
        res[R_PUT_BLOCK] = block_relation(0, src);
        res[R_HPPUT_BLOCK] = block_relation(1, src);
        res[R_SEND] = messages();
        res[R_PUT_CALL] = put_call();
        res[R_PUT_CALL_BATCH] = put_call_batched();
    }
    bsp_pop_reg(blocks);
    bsp_pop_reg(words);
    bsp_sync();
    if (bsp_pid() == 0)
        ebsp_send_up(&tag, res, sizeof res);
    bsp_end();
    free(words);
    free(blocks);
    free(src);
    return 0;
}
