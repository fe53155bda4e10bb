/* EBSP 1.0 registrations (the default, board, check level): a push takes
 * effect at once in the calling core's slot table, several per superstep,
 * nbytes ignored, an unknown address prints the board's line and the call
 * does nothing, a pop of something never registered is silent. Run 2: a
 * target that has not registered yet is waited for (the board raced). */
#include <e_bsp.h>

static int run;
int a, b[4], c, never;
volatile long spin;

int main(void)
{
    bsp_begin();
    int s = bsp_pid(), p = bsp_nprocs(), next = (s + 1) % p;
    run++;
    if (run == 2) {
        /* core 0 writes into core 1's c at once, before core 1 registered
         * it: the write waits for the registration */
        if (s == 1) {
            for (long i = 0; i < 20000000; i++)
                spin += i;
            bsp_push_reg(&a, 0);
            bsp_push_reg(&c, 0);
        } else {
            bsp_push_reg(&a, 0);
            bsp_push_reg(&c, 0);
        }
        int v = 77;
        if (s == 0)
            bsp_hpput(1, &v, &c, 0, sizeof v);
        bsp_sync();
        if (s == 1)
            ebsp_message("run 2: c = %d", c);
        bsp_pop_reg(&a);
        bsp_pop_reg(&c);
        bsp_sync();
        bsp_end();
        return 0;
    }
    if (run == 3) {
        /* core 2 never registers: core 0's put is reported at core 2's sync */
        if (s != 2)
            bsp_push_reg(&never, sizeof never);
        int v = 5;
        if (s == 0)
            bsp_put(2, &v, &never, 0, sizeof v);
        bsp_sync();
        ebsp_message("run 3: not reached");
        bsp_end();
        return 0;
    }

    /* two registrations in one superstep, the first with nbytes 0 */
    bsp_push_reg(&a, 0);
    bsp_push_reg(b, sizeof(int));
    ebsp_barrier(); /* every core has pushed: hpput may go now */
    int v = 100 + s;
    bsp_hpput(next, &v, &a, 0, sizeof v);
    int w[2] = {s, 2 * s};
    bsp_put(next, w, b, 2 * sizeof(int), sizeof w); /* beyond the 4 bytes registered */
    bsp_sync();
    ebsp_message("a = %d, b = %d %d %d %d", a, b[0], b[1], b[2], b[3]);

    /* an address never registered: the board's line, the run goes on */
    bsp_put(next, &v, &c, 0, sizeof v);
    ebsp_message("after the put to c");
    bsp_pop_reg(&c); /* silent */
    bsp_sync();

    /* pop a, push c: c takes a's slot, the lowest free one (a is gone) */
    bsp_pop_reg(&a);
    bsp_push_reg(&c, sizeof c);
    int *mine = ebsp_get_direct_address(s, &c);
    ebsp_message("direct address of my c is &c: %d", mine == &c);
    bsp_sync();
    int *there = ebsp_get_direct_address(next, &c);
    bsp_hpput(next, &v, &a, 0, sizeof v);
    *there = 200 + s;
    bsp_sync();
    ebsp_message("c = %d", c);
    bsp_end();
    return 0;
}
