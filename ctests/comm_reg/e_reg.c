/* Registrations: sizes that differ per core, stacked registrations of one
 * address, pops in another order than pushes, and push/pop repeated over
 * many supersteps. */
#include <e_bsp.h>

enum { ROUNDS = 300 };

int a[4], b[4], c[64];

int main(void)
{
    bsp_begin();
    int p = bsp_nprocs(), s = bsp_pid(), next = (s + 1) % p, errors = 0;
    /* core s registers only s+1 ints of c */
    bsp_push_reg(c, (s + 1) * (int)sizeof(int));
    bsp_sync();
    int v = 500 + s;
    bsp_put(next, &v, c, next * (int)sizeof(int), sizeof v); /* the last int next registered */
    bsp_sync();
    errors += c[s] != 500 + (s + p - 1) % p;

    /* stack a bigger registration on c, use it, withdraw it again */
    bsp_push_reg(c, sizeof c);
    bsp_sync();
    bsp_put(next, &v, c, 60 * (int)sizeof(int), sizeof v);
    bsp_pop_reg(c);
    bsp_sync();
    errors += c[60] != 500 + (s + p - 1) % p;

    for (int r = 0; r < ROUNDS; r++) {
        bsp_push_reg(a, sizeof a);
        bsp_sync();
        bsp_push_reg(b, sizeof b); /* strict: one registration per superstep */
        bsp_sync();
        int w[2] = {r, s};
        bsp_put(next, w, b, (r % 3) * (int)sizeof(int), sizeof w);
        bsp_put(next, w, a, 0, sizeof(int));
        if (r % 2) {
            bsp_pop_reg(a);
            bsp_pop_reg(b);
        } else {
            bsp_pop_reg(b);
            bsp_pop_reg(a);
        }
        bsp_sync();
        errors += a[0] != r || b[r % 3] != r || b[r % 3 + 1] != (s + p - 1) % p;
    }
    /* only the first registration of c is left: 4 bytes on core 0 */
    bsp_put(0, &v, c, 0, sizeof v);
    bsp_sync();
    ebsp_message("%d rounds, %d errors, c[0] = %d", ROUNDS, errors, c[0]);
    bsp_end();
    return 0;
}
