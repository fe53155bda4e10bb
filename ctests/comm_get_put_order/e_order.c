/* A bsp_get and a bsp_put that write the same bytes in one superstep: the
 * get is done first and the put wins (BSPlib's rule; on the board the gets
 * are written before a barrier and the puts after it). Core 0 gets core
 * 1's words into its registered `words`, which core 1 puts other values
 * into, over many supersteps so that a race would show. */
#include <e_bsp.h>

enum { N = 2048, ROUNDS = 40 };

long words[N];
long source[N];

int main(void)
{
    bsp_begin();
    int s = bsp_pid();
    bsp_push_reg(words, sizeof words);
    bsp_sync();
    bsp_push_reg(source, sizeof source);
    bsp_sync();
    int wrong = 0;
    for (int r = 0; r < ROUNDS; r++) {
        for (int i = 0; i < N; i++) {
            source[i] = 1000000L * r + i;  /* what the get brings */
            words[i] = -1;
        }
        long put[N];
        for (int i = 0; i < N; i++)
            put[i] = -(1000000L * r + i) - 2; /* what the put brings */
        bsp_sync();
        if (s == 0)
            bsp_get(1, source, 0, words, sizeof words);
        if (s == 1)
            bsp_put(0, put, words, 0, sizeof words);
        bsp_sync();
        if (s == 0)
            for (int i = 0; i < N; i++)
                wrong += words[i] != -(1000000L * r + i) - 2;
    }
    if (s == 0)
        ebsp_message("words not the put's: %d", wrong);
    bsp_end();
    return 0;
}
