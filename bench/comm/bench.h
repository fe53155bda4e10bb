/* Shared by the benchmark's host and kernel. */
#ifndef BENCH_H
#define BENCH_H

enum { WORDS_MAX = 1 << 16, BLOCK = 64 << 10, BLOCKS = 8 };

struct bench_params {
    int syncs;          /* empty syncs timed */
    int words;          /* h: 8-byte words each core puts per superstep */
    int msgs;           /* 16-byte messages each core sends per superstep */
    int reps;           /* supersteps timed per measurement */
    int calls;          /* bsp_put calls timed */
    int only_put_call;  /* measure only the bsp_put call cost */
};

enum { R_SYNC, R_PUT_G, R_HPPUT_G, R_PUT_BLOCK, R_HPPUT_BLOCK, R_SEND, R_PUT_CALL, R_PUT_CALL_BATCH, BENCH_RESULTS };

#endif
