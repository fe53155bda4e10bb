/*
 * calls.c -- the cost of one call through each face, measured in one
 * process and one BSPlib section, so that machine noise hits both alike:
 * 8-byte bsp_put, bsp_hpput and bsp_send through bsp.h (bsplib_*) and
 * through the EBSP core calls they forward to (calls_ebsp.c, built with
 * e_bsp.h; data calls of the other face are not refused, only its
 * lifecycle calls). Median of ROUNDS rounds of N calls, on pid 0.
 *     bspcc -O2 calls.c calls_ebsp.c -o calls && ./calls [P=2]
 */
#include <bsp.h>
#include <stdio.h>
#include <stdlib.h>

void ebsp_put(int pid, const void *src, void *dst, int offset, int nbytes);
void ebsp_hpput(int pid, const void *src, void *dst, int offset, int nbytes);
void ebsp_send(int pid, const void *tag, const void *payload, int nbytes);

enum { N = 16384, ROUNDS = 15 };
enum { PUT_BSPLIB, PUT_EBSP, HPPUT_BSPLIB, HPPUT_EBSP, SEND_BSPLIB, SEND_EBSP, KINDS };

static bsp_nprocs_t P = 2;
static double src[N], dst[N];
static double ns[KINDS][ROUNDS];

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void spmd(void)
{
    bsp_begin(P);
    bsp_pid_t s = bsp_pid(), o = (s + 1) % bsp_nprocs();
    bsp_push_reg(dst, sizeof dst);
    bsp_sync();
    for (int r = 0; r < ROUNDS; r++) {
        for (int kind = 0; kind < KINDS; kind++) {
            double t0 = bsp_time();
            for (int i = 0; i < N; i++) {
                size_t off = (size_t)i * sizeof(double);
                switch (kind) {
                case PUT_BSPLIB: bsp_put(o, &src[i], dst, off, sizeof(double)); break;
                case PUT_EBSP: ebsp_put((int)o, &src[i], dst, (int)off, (int)sizeof(double)); break;
                case HPPUT_BSPLIB: bsp_hpput(o, &src[i], dst, off, sizeof(double)); break;
                case HPPUT_EBSP: ebsp_hpput((int)o, &src[i], dst, (int)off, (int)sizeof(double)); break;
                case SEND_BSPLIB: bsp_send(o, NULL, &src[i], sizeof(double)); break;
                case SEND_EBSP: ebsp_send((int)o, NULL, &src[i], (int)sizeof(double)); break;
                }
            }
            ns[kind][r] = (bsp_time() - t0) / N * 1e9;
            bsp_sync(); /* delivers (and drops) what the loop queued; not timed */
        }
    }
    if (s == 0) {
        static const char *name[KINDS] = {"put8_call_ns", "put8_call_ns", "hpput8_call_ns", "hpput8_call_ns",
                                          "send8_call_ns", "send8_call_ns"};
        printf("%-16s %10s %10s   (P=%u, median of %d rounds of %d calls)\n", "", "bsp.h", "e_bsp.h",
               (unsigned)bsp_nprocs(), ROUNDS, N);
        for (int kind = 0; kind < KINDS; kind += 2) {
            qsort(ns[kind], ROUNDS, sizeof(double), cmp);
            qsort(ns[kind + 1], ROUNDS, sizeof(double), cmp);
            printf("%-16s %10.2f %10.2f\n", name[kind], ns[kind][ROUNDS / 2], ns[kind + 1][ROUNDS / 2]);
        }
    }
    bsp_pop_reg(dst);
    bsp_end();
}

int main(int argc, char **argv)
{
    bsp_init(spmd, argc, argv);
    if (argc > 1)
        P = (bsp_nprocs_t)atoi(argv[1]);
    if (P < 1 || P > bsp_nprocs()) {
        fprintf(stderr, "usage: calls [P]\n");
        return 2;
    }
    spmd();
    return 0;
}
