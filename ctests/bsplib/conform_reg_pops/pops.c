/*
 * BSPlib conformance: which registration bsp_pop_reg withdraws (README,
 * "BSPlib programs"), in the forms of BSPonMPI's own registration tests,
 * and built as those are (compatibility mode, int sizes):
 *   - a push and a pop of the same address in one superstep cancel out;
 *   - the k-th pop withdraws the same registration on every core: the one
 *     the lowest core whose k-th pop is not of NULL names, or, when every
 *     core pops NULL, one that is NULL on every core.
 * Each case checks what stays registered with puts (a put into a variable
 * that is no longer registered would stop the run).
 */
#include <bsp.h>
#include <stdio.h>

static int x[4], y[4], big[16];

/* puts v into int `at` of core s+1's copy of var (a ring), then syncs */
static void ring_put(void *var, int at, int v)
{
    bsp_pid_t s = bsp_pid(), p = bsp_nprocs();
    bsp_put((s + 1) % p, &v, var, at * (int)sizeof(int), sizeof(int));
    bsp_sync();
}

static void spmd(void)
{
    bsp_begin(4);
    bsp_pid_t s = bsp_pid(), p = bsp_nprocs();
    /* globals are shared: each core registers its own part of each array */

    /* 1. two pushes and two pops of one address in one superstep, and
     * BSPonMPI's push_reg_15 (NULL): nothing of them stays */
    bsp_push_reg(&x[s], sizeof(int));
    bsp_push_reg(&x[s], sizeof(int));
    bsp_pop_reg(&x[s]);
    bsp_pop_reg(&x[s]);
    bsp_push_reg(NULL, 0);
    bsp_pop_reg(NULL);
    bsp_push_reg(&big[4 * s], 4 * sizeof(int)); /* in force from the sync */
    bsp_sync();
    ring_put(&big[4 * s], 3, 100 + s);

    /* 2. a pop withdraws the newest registration: this superstep's push
     * (one int), not the four ints in force */
    bsp_push_reg(&big[4 * s], sizeof(int));
    bsp_pop_reg(&big[4 * s]);
    bsp_sync();
    ring_put(&big[4 * s], 2, 200 + s);

    /* 3. BSPonMPI's pop_reg_6: core 0 registers NULL, NULL, the others x,
     * NULL; core 0 pops NULL, the others x: the first goes everywhere */
    bsp_push_reg(s == 0 ? NULL : &x[s], s == 0 ? 0 : sizeof(int));
    bsp_push_reg(NULL, 0);
    bsp_sync();
    bsp_pop_reg(s == 0 ? NULL : &x[s]);
    bsp_sync();

    /* 4. BSPonMPI's pop_reg_5: NULL everywhere, then NULL on core 0 and y
     * elsewhere; two pops of NULL on every core withdraw the registrations
     * that are NULL everywhere (this one and case 3's second); y stays */
    bsp_push_reg(NULL, 0);
    bsp_push_reg(s == 0 ? NULL : &y[s], s == 0 ? 0 : sizeof(int));
    bsp_sync();
    bsp_pop_reg(NULL);
    bsp_pop_reg(NULL);
    bsp_sync();
    int v = (int)s;
    if (s > 0) /* a ring of cores 1..3 */
        bsp_put(s == p - 1 ? 1 : s + 1, &v, &y[s], 0, sizeof(int));
    bsp_sync();

    /* 5. pops that name different registrations: the lowest core's pop
     * decides; core 0 pops big, the others y: big goes everywhere */
    bsp_pop_reg(s == 0 ? (void *)&big[0] : (void *)&y[s]);
    bsp_sync();
    v = 10 + (int)s;
    if (s > 0)
        bsp_put(s == p - 1 ? 1 : s + 1, &v, &y[s], 0, sizeof(int));
    bsp_pop_reg(s == 0 ? NULL : &y[s]);
    bsp_sync();

    /* nothing is registered now: x anew */
    bsp_push_reg(&x[s], sizeof(int));
    bsp_sync();
    ring_put(&x[s], 0, 500 + s);
    bsp_pop_reg(&x[s]);
    bsp_sync();

    for (bsp_pid_t t = 0; t < p; t++) {
        if (t == s)
            printf("$%02d: big %d %d, y %d, x %d\n", s, big[4 * s + 3], big[4 * s + 2], y[s], x[s]);
        bsp_sync();
    }
    bsp_end();
}

int main(int argc, char **argv)
{
    bsp_init(spmd, argc, argv);
    spmd();
    printf("done\n");
    return 0;
}
