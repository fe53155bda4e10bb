#include <host_bsp.h>
#include <stdio.h>
#include <stdlib.h>

enum { CORES = 4, COUNT = 16384, TOKEN = 4096 };

int main(int argc, char **argv)
{
    if (!bsp_init("e_double.elf", argc, argv) || !bsp_begin(CORES))
        return 1;
    int *data = malloc(COUNT * sizeof(int));
    for (int i = 0; i < COUNT; i++)
        data[i] = i;
    for (int s = 0; s < CORES; s++)
        bsp_stream_create(COUNT * sizeof(int), TOKEN, data);
    free(data); /* the streams hold copies */
    int *up[CORES];
    for (int s = 0; s < CORES; s++)
        up[s] = bsp_stream_create(COUNT / 1024 * 16, 16, NULL);
    if (!ebsp_spmd())
        return 1;
    /* read the results in place: header (prev, next) before each token */
    for (int s = 0; s < CORES; s++) {
        int *h = up[s], tokens = 0, ok = h[0] == 0;
        long long total = 0;
        while (h[1] != 0) {
            int *r = h + 2;
            ok &= h[1] == 16 && r[0] == tokens && r[2] == TOKEN && r[3] == s;
            total += r[1];
            tokens++;
            h = (int *)((char *)(h + 2) + 16);
            ok &= h[0] == 16;
        }
        printf("up stream of core %d: %d result tokens, well formed: %s, total %lld\n", s, tokens,
               ok ? "yes" : "no", total);
    }
    bsp_end();
    return 0;
}
