/* A ring shift done with bsp_get into the registered array itself: each
 * core gets its left neighbour's words while its right neighbour gets its
 * own, so every get must read the values from before the sync. Words of 8
 * and of 4 bytes and a whole block, over many supersteps. */
#include <e_bsp.h>
#include <stdint.h>

enum { N = 512, ROUNDS = 30 };

int64_t words[N];
int32_t halves[N];

int main(void)
{
    bsp_begin();
    int s = bsp_pid(), p = bsp_nprocs(), left = (s + p - 1) % p;
    for (int i = 0; i < N; i++) {
        words[i] = (int64_t)s * 1000000 + i;
        halves[i] = s * 1000 + i;
    }
    bsp_push_reg(words, sizeof words);
    bsp_sync();
    bsp_push_reg(halves, sizeof halves);
    bsp_sync();
    int wrong = 0;
    for (int r = 1; r <= ROUNDS; r++) {
        for (int i = 0; i < N; i++)
            bsp_get(left, words, i * (int)sizeof(int64_t), &words[i], sizeof(int64_t));
        bsp_get(left, halves, 0, halves, sizeof halves);
        bsp_sync();
        int from = ((s - r) % p + p) % p; /* the values travelled r cores */
        for (int i = 0; i < N; i++)
            wrong += words[i] != (int64_t)from * 1000000 + i || halves[i] != from * 1000 + i;
    }
    ebsp_message("wrong words after %d shifts: %d", ROUNDS, wrong);
    bsp_end();
    return 0;
}
