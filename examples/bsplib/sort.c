/*
 * sort.c -- parallel sorting by regular sampling (PSRS) with BSPlib
 * messages, checked against a sequential sort.
 *
 * Every core makes N/P pseudo-random keys, sorts them and puts P regular
 * samples into every core's sample table (superstep 1). Every core sorts
 * the P*P samples and picks the same P-1 splitters, then sends each other
 * core the keys of its bucket as one message tagged with the key count
 * (superstep 2). Each core receives its buckets with bsp_get_tag and
 * bsp_hpmove (no copy) and merges them. Finally every core puts its keys
 * into pid 0's result array at its offset (a prefix sum of the counts,
 * superstep 3 and 4), and pid 0 compares the result with qsort of all keys.
 * Only pid 0 has the N that main read (under mpirun the other processes run
 * bspsort at once): it sends N to every core in superstep 0.
 *     bspcc sort.c -o sort && ./sort [P] [N]
 */
#include <bsp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint32_t key;

static bsp_nprocs_t P; /* set by main, read by pid 0 */
static long N;         /* set by main, read by pid 0 */
static int result = 1; /* written by pid 0 only, for main */

static int cmp_key(const void *a, const void *b)
{
    key x = *(const key *)a, y = *(const key *)b;
    return x < y ? -1 : x > y;
}

/* Key i of core s: a fixed pseudo-random function, so pid 0 can rebuild
 * all keys for the sequential sort. */
static key make_key(long global)
{
    uint64_t z = (uint64_t)global * 0x9E3779B97F4A7C15u + 12345;
    z ^= z >> 31;
    z *= 0xBF58476D1CE4E5B9u;
    z ^= z >> 29;
    return (key)(z % 1000000u); /* many duplicates */
}

static long first_of(bsp_pid_t s, bsp_nprocs_t p, long n) { return n * (long)s / (long)p; }

static void bspsort(void)
{
    bsp_begin(P);
    bsp_nprocs_t p = bsp_nprocs();
    bsp_pid_t s = bsp_pid();

    key *samples = malloc((size_t)p * p * sizeof(key));
    long *counts = calloc(p, sizeof(long));
    key *all = s == 0 ? malloc((size_t)N * sizeof(key)) : NULL;
    if (!samples || !counts || (s == 0 && !all))
        bsp_abort("sort: out of memory on core %u\n", s);
    bsp_push_reg(samples, (size_t)p * p * sizeof(key));
    bsp_push_reg(counts, p * sizeof(long));
    bsp_push_reg(all, s == 0 ? (size_t)N * sizeof(key) : 0); /* NULL, 0 bytes on the others */
    bsp_size_t tagsize = sizeof(long);
    bsp_set_tagsize(&tagsize); /* from the sync on: this superstep's messages have no tag */
    if (s == 0)
        for (bsp_pid_t t = 0; t < p; t++)
            bsp_send(t, NULL, &N, sizeof N);
    bsp_sync();

    /* superstep 1: sort locally, share P regular samples with everybody */
    long n;
    bsp_move(&n, sizeof n); /* N, from pid 0 */
    long lo = first_of(s, p, n), nl = first_of(s + 1, p, n) - lo;
    key *mine = malloc((size_t)(nl > 0 ? nl : 1) * sizeof(key));
    if (!mine)
        bsp_abort("sort: out of memory on core %u\n", s);
    for (long i = 0; i < nl; i++)
        mine[i] = make_key(lo + i);
    qsort(mine, (size_t)nl, sizeof(key), cmp_key);
    key sample[4096];
    for (bsp_nprocs_t k = 0; k < p; k++)
        sample[k] = nl > 0 ? mine[(long)k * nl / (long)p] : 0;
    for (bsp_pid_t t = 0; t < p; t++)
        bsp_put(t, sample, samples, (size_t)s * p * sizeof(key), p * sizeof(key));
    bsp_sync();

    /* superstep 2: the same splitters everywhere; one message per bucket */
    qsort(samples, (size_t)p * p, sizeof(key), cmp_key);
    long start = 0;
    for (bsp_pid_t t = 0; t < p; t++) {
        long end = nl;
        if (t + 1 < p) {
            key splitter = samples[(t + 1) * p];
            end = start;
            while (end < nl && mine[end] < splitter)
                end++;
        }
        long cnt = end - start;
        bsp_send(t, &cnt, mine + start, (size_t)cnt * sizeof(key));
        start = end;
    }
    bsp_sync();

    /* receive the buckets (zero-copy) and merge them */
    bsp_nprocs_t nmsg;
    bsp_size_t bytes;
    bsp_qsize(&nmsg, &bytes);
    long nrecv = (long)(bytes / sizeof(key));
    key *got = malloc((size_t)(nrecv > 0 ? nrecv : 1) * sizeof(key));
    if (!got)
        bsp_abort("sort: out of memory on core %u\n", s);
    long filled = 0;
    for (bsp_nprocs_t m = 0; m < nmsg; m++) {
        bsp_size_t status;
        long cnt;
        bsp_get_tag(&status, &cnt);
        void *tag, *payload;
        bsp_size_t size = bsp_hpmove(&tag, &payload);
        if (size != status || (long)size != cnt * (long)sizeof(key) || memcmp(tag, &cnt, sizeof cnt) != 0)
            bsp_abort("sort: core %u: message %u has size %zu, tag %ld\n", s, (unsigned)m, (size_t)size, cnt);
        memcpy(got + filled, payload, size);
        filled += cnt;
    }
    qsort(got, (size_t)nrecv, sizeof(key), cmp_key); /* a merge would do; qsort is shorter */

    /* superstep 3: every core learns every count; 4: the keys go to pid 0 */
    for (bsp_pid_t t = 0; t < p; t++)
        bsp_put(t, &nrecv, counts, s * sizeof(long), sizeof(long));
    bsp_sync();
    long offset = 0;
    for (bsp_pid_t t = 0; t < s; t++)
        offset += counts[t];
    bsp_put(0, got, all, (size_t)offset * sizeof(key), (size_t)nrecv * sizeof(key));
    bsp_sync();

    if (s == 0) {
        key *seq = malloc((size_t)N * sizeof(key));
        if (!seq)
            bsp_abort("sort: out of memory for the check\n");
        for (long i = 0; i < N; i++)
            seq[i] = make_key(i);
        qsort(seq, (size_t)N, sizeof(key), cmp_key);
        long total = 0, largest = 0;
        for (bsp_pid_t t = 0; t < p; t++) {
            total += counts[t];
            if (counts[t] > largest)
                largest = counts[t];
        }
        result = total == N && memcmp(seq, all, (size_t)N * sizeof(key)) == 0;
        printf("sorted %ld keys on %u cores: %s\n", N, p,
               result ? "equal to the sequential sort" : "DIFFERENT from the sequential sort");
        printf("largest bucket within 2N/P: %s\n", largest <= 2 * N / (long)p + (long)p ? "yes" : "no");
        free(seq);
    }
    bsp_pop_reg(all);
    bsp_pop_reg(counts);
    bsp_pop_reg(samples);
    bsp_sync();
    free(got);
    free(all);
    free(counts);
    free(samples);
    free(mine);
    bsp_end();
}

int main(int argc, char **argv)
{
    bsp_init(bspsort, argc, argv);
    P = argc > 1 ? (bsp_nprocs_t)atoi(argv[1]) : bsp_nprocs();
    N = argc > 2 ? atol(argv[2]) : 200000;
    if (P < 1 || P > bsp_nprocs() || P > 4096 || N < 1) {
        fprintf(stderr, "usage: sort [P (1..%u)] [N >= 1]\n", bsp_nprocs());
        return 2;
    }
    bspsort();
    printf("sort: %s\n", result ? "OK" : "FAILED");
    return !result;
}
