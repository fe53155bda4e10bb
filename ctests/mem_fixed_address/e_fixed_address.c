/* A kernel that reaches its local memory at fixed addresses, as on the
 * board (the EBSP docs: `char *my_other_char = (char*)0x6000;`): plain
 * loads and stores, read-modify-write, SSE, a vectorised loop, and the C
 * library's memset and memcpy; then the same computation run on a fixed
 * address and on a pointer from ebsp_local_address, compiled four ways
 * (-O1, -O3, AVX2 and AVX-512 where the CPU has them), must leave the
 * same bytes and results. */
#include <e_bsp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Vectorised where gcc can: SSE instructions with a memory operand. */
__attribute__((optimize("O3"), noinline)) static int sum16(const int *v)
{
    int s = 0;
    for (int i = 0; i < 16; i++)
        s += v[i];
    return s;
}

__attribute__((noinline)) static int same_bytes(const unsigned char *a, unsigned char v, int n)
{
    for (int i = 0; i < n; i++)
        if (a[i] != v)
            return 0;
    return 1;
}

/* Integer, floating-point, string and block work on the arrays at m. */
#define WORK                                                                                         \
    {                                                                                                \
        unsigned char *b = (unsigned char *)m, *big = (unsigned char *)m + 512;                      \
        int *w = (int *)(m + 64);                                                                    \
        int64_t *q = (int64_t *)(m + 128);                                                           \
        double *d = (double *)(m + 192);                                                             \
        float *f = (float *)(m + 256);                                                               \
        short *s = (short *)(m + 288);                                                               \
        char *str = m + 352, *out = m + 400;                                                         \
        int acc = 0;                                                                                 \
        for (int i = 0; i < 64; i++)                                                                 \
            b[i] = (unsigned char)(i * 7 + seed);                                                    \
        for (int i = 0; i < 16; i++)                                                                 \
            w[i] = i * 1000 + seed;                                                                  \
        for (int i = 0; i < 8; i++) {                                                                \
            q[i] = (int64_t)i * 123456789 + seed;                                                    \
            d[i] = i * 0.5 + seed;                                                                   \
            f[i] = i * 0.25f;                                                                        \
        }                                                                                            \
        for (int r = 0; r < 3; r++) {                                                                \
            for (int i = 0; i < 16; i++) {                                                           \
                w[i] += b[i] * 3;                                                                    \
                w[i] ^= (int)q[i & 7];                                                               \
                w[i] -= i;                                                                           \
                if (w[i] > 5000)                                                                     \
                    w[i] >>= 1;                                                                      \
                else                                                                                 \
                    w[i] <<= 2;                                                                      \
            }                                                                                        \
            for (int i = 0; i < 8; i++) {                                                            \
                q[i] *= 3;                                                                           \
                q[i] /= 2 + (q[i] & 1);                                                              \
                q[i] |= w[i];                                                                        \
                d[i] = d[i] * 1.25 + f[i];                                                           \
                f[i] = (float)d[i] - f[i];                                                           \
            }                                                                                        \
            for (int i = 0; i < 64; i++) {                                                           \
                b[i] += b[(i + 1) & 63];                                                             \
                b[i] &= 0x7f;                                                                        \
                s[i & 31] = (short)(s[i & 31] + b[i]);                                               \
            }                                                                                        \
            acc += w[r] + (int)q[r] + (int)d[r] + b[r] + __builtin_popcount((unsigned)w[5]) +        \
                   (int)(q[2] % 7);                                                                  \
        }                                                                                            \
        strcpy(str, "fixed addresses");                                                              \
        str[0] ^= 0x20;                                                                              \
        acc += (int)strlen(str) + strcmp(str, "Fixed");                                              \
        char line[40];                                                                               \
        snprintf(line, sizeof line, "%d %s", acc, str);                                              \
        strcpy(out, line);                                                                           \
        acc += (int)strlen(out);                                                                     \
        memcpy(big, b, 64);                                                                          \
        memset(big + 64, seed, 5000);                                                                \
        memmove(big + 10, big, 3000);                                                                \
        return acc + (memcmp(big, big + 1, 100) > 0);                                                \
    }

#define AREA 0x1f00 /* the bytes WORK touches */

__attribute__((noinline)) static int work_o1(char *m, int seed) WORK
__attribute__((noinline, optimize("O3"))) static int work_o3(char *m, int seed) WORK
__attribute__((noinline, optimize("O3"), target("avx2"))) static int work_avx2(char *m, int seed) WORK
__attribute__((noinline, optimize("O3"), target("avx512f,avx512bw,avx512vl"))) static int work_avx512(char *m, int seed) WORK

/* Whether WORK leaves the same results and bytes at 0x4000 as through a pointer at 0x2000. */
static int same_both_ways(int (*work)(char *, int), int seed)
{
    char *real = ebsp_local_address(0x2000), *fixed = (char *)0x4000;
    memset(real, 0, AREA);
    memset(fixed, 0, AREA);
    int a = work(real, seed), b = work(fixed, seed);
    return a == b && memcmp(real, ebsp_local_address(0x4000), AREA) == 0;
}

int main(void)
{
    bsp_begin();
    int p = bsp_pid();
    const char *hmsg = "Hello world! BSP";
    char *a = (void *)0x6000;
    *a = hmsg[p];
    int *po = (int *)0x6004;
    *po = p;
    ebsp_message("I am core %d and I will write '%c' to %p", p, *a, (void *)a);

    int *sum = (int *)0x6008;
    *sum = sum16((const int *)0x5000);
    volatile int *count = (volatile int *)0x600c;
    *count = 0;
    for (int i = 0; i < 5; i++)
        ++*count; /* an add to memory: flags and all */
    volatile double *d = (volatile double *)0x6010;
    *d = 1.5 * p;
    *d = *d * 2;

    memset((void *)0x4000, 0x40 + p, 3000);
    memcpy((void *)0x3000, (const void *)0x4000, 3000);
    int copied = same_bytes((const unsigned char *)0x3000, (unsigned char)(0x40 + p), 3000);
    int *seen = ebsp_local_address(0x6004); /* the same memory */
    ebsp_message("sum %d count %d double %.1f copied %d seen %d", *sum, *count, *d, copied, *seen == p);

    int agree = same_both_ways(work_o1, p) && same_both_ways(work_o3, p);
    if (__builtin_cpu_supports("avx2"))
        agree = agree && same_both_ways(work_avx2, p);
    if (__builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl"))
        agree = agree && same_both_ways(work_avx512, p);
    ebsp_message("the same work on a fixed address and through a pointer agrees: %d", agree);

    /* the calls take fixed local addresses too */
    int *ext = ebsp_ext_malloc(64), *dmaed = (int *)0x7000, *got = (int *)0x7100, *moved = (int *)0x7200;
    for (int i = 0; i < 16; i++)
        ext[i] = 10 * i + p;
    ebsp_dma_handle h;
    ebsp_dma_push(&h, dmaed, ext, 64);
    ebsp_dma_wait(&h);
    bsp_push_reg(got, 16);
    bsp_sync();
    int next = (p + 1) % bsp_nprocs();
    bsp_put(next, &dmaed[5], got, 0, sizeof(int));
    bsp_hpput(next, &dmaed[6], got, sizeof(int), sizeof(int));
    bsp_send(next, NULL, dmaed, 2 * sizeof(int));
    bsp_sync();
    bsp_get(next, got, 0, &got[2], sizeof(int));
    if (p == 1) /* not registered: named as the kernel named it */
        bsp_hpput(0, dmaed, (void *)0x7300, 0, sizeof(int));
    bsp_move(moved, 2 * sizeof(int));
    bsp_sync();
    ebsp_message("dma %d, put %d, hpput %d, get %d, message %d %d", dmaed[5], got[0], got[1], got[2], moved[0],
                 moved[1]);
    bsp_end();
    return 0;
}
