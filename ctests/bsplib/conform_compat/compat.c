/*
 * BSPlib conformance in MulticoreBSP's compatibility mode (cflags:
 * -DMCBSP_COMPATIBILITY_MODE): the classic BSPlib signatures with int
 * pids, sizes and offsets, as in older textbook programs.
 */
#include <bsp.h>
#include <stdio.h>
#include <string.h>

static int P;

static void check(const char *name, int ok)
{
    printf("$%02d: %s: %s\n", bsp_pid(), name, ok ? "ok" : "FAILED");
}

static void spmd(void)
{
    bsp_begin(P);
    int p = bsp_nprocs(), s = bsp_pid(), next = (s + 1) % p;
    int a[4] = {0, 0, 0, 0}, b = 0;
    bsp_push_reg(a, (int)sizeof a);
    bsp_push_reg(&b, (int)sizeof b);
    int tagsize = 4;
    bsp_set_tagsize(&tagsize);
    /* uint8_t without <stdint.h>: MulticoreBSP's bsp.h includes it, and programs rely on that */
    check("int types", sizeof(bsp_pid_t) == sizeof(int) && sizeof(bsp_size_t) == sizeof(int) && tagsize == 0 &&
                           (uint8_t)256 == 0);
    bsp_sync();

    int v = 10 + s, w = -1;
    bsp_put(next, &v, a, 3 * (int)sizeof(int), (int)sizeof v);
    bsp_hpput(next, &v, &b, 0, (int)sizeof v);
    bsp_get(next, a, 0, &w, (int)sizeof w);
    int tag = s;
    bsp_send(next, &tag, &v, (int)sizeof v);
    bsp_sync();
    check("put, hpput, get", a[3] == 10 + (s + p - 1) % p && b == a[3] && w == 0);

    int packets = -1, bytes = -1, status = 0, got_tag = -1, m = 0;
    bsp_qsize(&packets, &bytes);
    bsp_get_tag(&status, &got_tag);
    bsp_move(&m, (int)sizeof m);
    int after = 0;
    bsp_get_tag(&after, NULL);
    void *tp, *pp;
    check("qsize, get_tag, move, empty queue",
          packets == 1 && bytes == (int)sizeof(int) && status == (int)sizeof(int) && got_tag == (s + p - 1) % p &&
              m == 10 + (s + p - 1) % p && after == -1 && bsp_hpmove(&tp, &pp) == -1);
#ifndef CONFORM_MPI
    int d = -1;
    bsp_direct_get(next, a, 3 * (int)sizeof(int), &d, (int)sizeof d);
    bsp_hpget(next, &b, 0, &w, (int)sizeof w);
    check("direct_get, hpget", d == 10 + s && w == 10 + s);
#else
    /* under mpirun (the MPI test builds with -DCONFORM_MPI): bsp_direct_get
     * of a core in another rank is refused, bsp_hpget of one completes at
     * the next sync */
    bsp_hpget(next, &b, 0, &w, (int)sizeof w);
    bsp_sync();
    check("hpget", w == 10 + s);
#endif
    bsp_pop_reg(&b);
    bsp_pop_reg(a);
    bsp_sync();
    bsp_end();
}

int main(int argc, char **argv)
{
    bsp_init(spmd, argc, argv);
    P = bsp_nprocs();
    spmd();
#ifndef CONFORM_MPI
    printf("done on %d of %d cores\n", P, bsp_nprocs());
#else /* after the section, bsp_nprocs() is rank 0's cores */
    printf("done on %d cores\n", P);
#endif
    return 0;
}
