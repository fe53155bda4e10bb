/* Streaming dot product: two vectors of 2^20 doubles (8 MiB each, far more
 * than the cores' local memories together) are cut into one slice per
 * core and streamed through the cores in 2 KiB tokens; the host adds the
 * partial sums the cores write up and checks the result. */
#include <host_bsp.h>
#include <stdio.h>
#include <stdlib.h>

enum { N = 1 << 20, TOKEN = 2048 };

struct partial {
    double partial;
    long long count;
};

int main(int argc, char **argv)
{
    if (!bsp_init("e_stream_dot.elf", argc, argv))
        return 1;
    int p = bsp_nprocs();
    if (!bsp_begin(p))
        return 1;
    double *x = malloc(N * sizeof(double)), *y = malloc(N * sizeof(double));
    double want = 0.0; /* small integers: every sum is exact in a double */
    for (int i = 0; i < N; i++) {
        x[i] = i % 7 - 2;
        y[i] = i % 5 + 1;
        want += x[i] * y[i];
    }
    struct partial **results = malloc((size_t)p * sizeof *results);
    for (int s = 0; s < p; s++) {
        int first = (int)((long long)N * s / p), last = (int)((long long)N * (s + 1) / p);
        int bytes = (last - first) * (int)sizeof(double);
        bsp_stream_create(bytes, TOKEN, x + first);
        bsp_stream_create(bytes, TOKEN, y + first);
        int *area = bsp_stream_create(sizeof(struct partial), 16, NULL);
        if (!area)
            return 1;
        results[s] = (struct partial *)(area + 2); /* after the first header */
    }
    free(x);
    free(y);
    if (!ebsp_spmd())
        return 1;
    double got = 0.0;
    long long count = 0;
    for (int s = 0; s < p; s++) {
        got += results[s]->partial;
        count += results[s]->count;
    }
    printf("dot product of %d elements on %d cores: %.1f (expected %.1f, %lld elements streamed): %s\n",
           N, p, got, want, count, got == want && count == N ? "OK" : "WRONG");
    bsp_end();
    free(results);
    return got == want && count == N ? 0 : 1;
}
