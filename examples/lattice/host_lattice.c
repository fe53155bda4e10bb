/* The lattice example's host: runs e_lattice on all cores and checks every
 * site, and the global sum, against a sequential computation of the whole
 * periodic lattice (the same additions in the same order: equal bits). */
#include <host_bsp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lattice.h"

int main(int argc, char **argv)
{
    if (!bsp_init("e_lattice.elf", argc, argv))
        return 1;
    int p = bsp_nprocs(), px = 1;
    while (px * px < p)
        px *= 2;
    if (p % px != 0 || !bsp_begin(p)) {
        fprintf(stderr, "lattice: needs a power-of-two core count\n");
        return 1;
    }
    int py = p / px, W = px * NX, H = py * NY;
    int tagsize = sizeof(int);
    ebsp_set_tagsize(&tagsize);
    if (!ebsp_spmd())
        return 1;

    double *g = malloc(sizeof(double) * W * H), *h = malloc(sizeof(double) * W * H);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            g[y * W + x] = initial(x, y);
    for (int step = 0; step < STEPS; step++) {
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++)
                h[y * W + x] = average(g[y * W + (x + W - 1) % W], g[y * W + (x + 1) % W],
                                       g[((y + H - 1) % H) * W + x], g[((y + 1) % H) * W + x]);
        double *t = g;
        g = h;
        h = t;
    }

    int packets, bytes, wrong = 0, sums_agree = 1;
    ebsp_qsize(&packets, &bytes);
    struct block *blocks = calloc((size_t)p, sizeof *blocks);
    for (int k = 0; k < packets; k++) {
        int status, pid;
        ebsp_get_tag(&status, &pid);
        ebsp_move(&blocks[pid], sizeof blocks[pid]);
    }
    double total = 0;
    for (int pid = 0; pid < p; pid++) { /* the library's order: core order */
        struct block *b = &blocks[pid];
        double partial = 0;
        for (int j = 0; j < NY; j++)
            for (int i = 0; i < NX; i++) {
                double want = g[(b->cy * NY + j) * W + b->cx * NX + i];
                wrong += memcmp(&want, &b->u[j][i], sizeof want) != 0;
                partial += want;
            }
        total += partial;
    }
    for (int pid = 0; pid < p; pid++)
        sums_agree &= memcmp(&blocks[pid].total, &total, sizeof total) == 0;
    printf("lattice %dx%d on %d cores (a %dx%d grid), %d steps, halos overlapped with the interior:\n", W, H,
           packets, px, py, STEPS);
    printf("  %d of %d sites differ from the sequential computation\n", wrong, W * H);
    printf("  global sum %.6f: %s\n", total, sums_agree ? "the same bits on every core and sequentially" : "WRONG");
    bsp_end();
    free(blocks);
    free(g);
    free(h);
    return wrong == 0 && sums_agree && packets == p ? 0 : 1;
}
