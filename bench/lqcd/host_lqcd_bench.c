/* The LQCD benchmark: runs e_lqcd_bench on all cores of the mesh
 * (EBSP_MESH=4x4 or 8x8) for 1 KiB and 64 KiB halos and prints one line per
 * size: microseconds per 8-direction halo exchange and per sumDouble. */
#include <host_bsp.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench_lqcd.h"

static int run(struct lqcd_params par, struct lqcd_results *res)
{
    if (!bsp_init("e_lqcd_bench.elf", 0, NULL) || !bsp_begin(bsp_nprocs()))
        return 0;
    int tagsize = sizeof(int), tag = 0, status;
    ebsp_set_tagsize(&tagsize);
    for (int s = 0; s < bsp_nprocs(); s++)
        ebsp_send_down(s, &tag, &par, sizeof par);
    int ok = ebsp_spmd();
    ebsp_get_tag(&status, &tag);
    ebsp_move(res, sizeof *res);
    bsp_end();
    return ok && status == (int)sizeof *res;
}

int main(void)
{
    /* the host's bsp_nprocs is 0 before bsp_init, as on the board */
    if (!bsp_init("e_lqcd_bench.elf", 0, NULL))
        return 1;
    int p = bsp_nprocs();
    bsp_end();
    static const int sizes[] = {1024, 65536};
    for (int i = 0; i < 2; i++) {
        struct lqcd_params par = {
            .bytes = sizes[i],
            .exchanges = sizes[i] <= 1024 ? (p <= 16 ? 2000 : 300) : (p <= 16 ? 200 : 40),
            .sums = p <= 16 ? 4000 : 1000,
        };
        struct lqcd_results r;
        if (!run(par, &r)) {
            fprintf(stderr, "bench-lqcd: the run on %d cores failed\n", p);
            return 1;
        }
        printf("libebsp   %3d cores  %6d B  halo exchange %9.2f us   sumDouble %7.2f us\n", p, sizes[i],
               r.exchange * 1e6, r.sum * 1e6);
    }
    return 0;
}
