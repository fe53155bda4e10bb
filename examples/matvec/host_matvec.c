/* The matrix-vector example: a 256x256 integer matrix times a vector on
 * all cores; the host checks every element of the result. */
#include <host_bsp.h>
#include <stdio.h>

enum { N = 256 };

int main(int argc, char **argv)
{
    if (!bsp_init("e_matvec.elf", argc, argv))
        return 1;
    int p = bsp_nprocs();
    if (N % p != 0 || N / p > 64 || !bsp_begin(p)) {
        fprintf(stderr, "matvec: needs a core count dividing %d, at least 4\n", N);
        return 1;
    }
    static double a[N][N], x[N], want[N], got[N];
    for (int i = 0; i < N; i++) {
        x[i] = (i % 7) - 3;
        for (int j = 0; j < N; j++)
            a[i][j] = (i + 2 * j) % 11 - 5;
    }
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            want[i] += a[i][j] * x[j];

    int tagsize = sizeof(int), b = N / p;
    ebsp_set_tagsize(&tagsize);
    for (int s = 0; s < p; s++) {
        double block[N + 1];
        block[0] = N;
        for (int j = 0; j < b; j++)
            block[1 + j] = x[s * b + j];
        int head = -1;
        ebsp_send_down(s, &head, block, (b + 1) * (int)sizeof(double));
        for (int r = s * b; r < (s + 1) * b; r++)
            ebsp_send_down(s, &r, a[r], N * (int)sizeof(double));
    }
    if (!ebsp_spmd())
        return 1;
    int packets, bytes, status, row, wrong = 0;
    ebsp_qsize(&packets, &bytes);
    for (ebsp_get_tag(&status, &row); status >= 0; ebsp_get_tag(&status, &row))
        ebsp_move(&got[row], sizeof got[row]);
    for (int i = 0; i < N; i++)
        wrong += got[i] != want[i];
    bsp_end();
    printf("matrix-vector product %dx%d on %d cores: %d results, %d wrong\n", N, N, p, packets, wrong);
    return wrong || packets != N ? 1 : 0;
}
