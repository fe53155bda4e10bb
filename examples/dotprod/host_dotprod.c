/* The dot product example: x.y for vectors of 4096 doubles split over the
 * cores; the host checks the cores' answer against its own. */
#include <host_bsp.h>
#include <stdio.h>
#include <stdlib.h>

enum { N = 4096 };

int main(int argc, char **argv)
{
    if (!bsp_init("e_dotprod.elf", argc, argv))
        return 1;
    int p = bsp_nprocs();
    if (N % p != 0 || N / p > 256 || !bsp_begin(p)) {
        fprintf(stderr, "dotprod: needs a core count dividing %d, at least 16\n", N);
        return 1;
    }
    static double x[N], y[N];
    double want = 0.0;
    for (int i = 0; i < N; i++) {
        x[i] = i % 17;
        y[i] = (i % 5) - 1;
        want += x[i] * y[i];
    }
    int tagsize = sizeof(int);
    ebsp_set_tagsize(&tagsize);
    int chunk = N / p;
    for (int s = 0; s < p; s++) {
        int tx = 0, ty = 1;
        ebsp_send_down(s, &tx, &x[s * chunk], chunk * (int)sizeof(double));
        ebsp_send_down(s, &ty, &y[s * chunk], chunk * (int)sizeof(double));
    }
    if (!ebsp_spmd())
        return 1;
    int status, tag;
    double got = 0.0;
    ebsp_get_tag(&status, &tag);
    ebsp_move(&got, sizeof got);
    bsp_end();
    printf("dot product on %d cores: %.1f (host: %.1f) %s\n", p, got, want, got == want ? "correct" : "WRONG");
    return got == want ? 0 : 1;
}
