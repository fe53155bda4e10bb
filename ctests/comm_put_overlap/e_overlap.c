/* Every core puts into the same words of core 0, several times. With
 * EBSP_CHECKS=strict (this test's env) the puts are applied by source pid,
 * then in issue order, so the last put of the last core wins in every run
 * (a 4-byte word, and a 64-byte block that the cores overlap by halves).
 * At the board level each core writes its own puts, as on the board, and
 * overlapping puts of different cores end in no defined order. */
#include <e_bsp.h>

int word;
char block[96];

int main(void)
{
    bsp_begin();
    int s = bsp_pid();
    bsp_push_reg(&word, sizeof word);
    bsp_sync();
    bsp_push_reg(block, sizeof block);
    bsp_sync();
    char mine[64];
    for (int round = 0; round < 20; round++) {
        for (int i = 0; i < 3; i++) {
            int v = 100 * round + 10 * s + i;
            bsp_put(0, &v, &word, 0, sizeof v);
        }
        for (int k = 0; k < 64; k++)
            mine[k] = (char)('A' + s);
        bsp_put(0, mine, block, (s % 2) * 32, sizeof mine);
        bsp_sync();
        if (s == 0 && round % 5 == 4)
            ebsp_message("round %d: word %d, block %.1s%.1s%.1s", round, word, &block[0], &block[40], &block[95]);
    }
    bsp_end();
    return 0;
}
