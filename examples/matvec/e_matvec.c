/* Matrix-vector product y = A x, A distributed by rows. Each core gets
 * its rows and its block of x from the host, gathers the whole x with one
 * bsp_put per core (an all-gather), multiplies, and sends its block of y
 * to the host with one message per row. */
#include <e_bsp.h>

enum { MAXN = 512, MAXROWS = 64 };

double x[MAXN];

int main(void)
{
    bsp_begin();
    int p = bsp_nprocs(), s = bsp_pid();
    bsp_push_reg(x, sizeof x);

    /* messages down: tag -1 holds n and my block of x, tag r holds row r */
    static double rows[MAXROWS][MAXN];
    int first = -1, nrows = 0, n = 0, status, tag;
    double block[MAXN];
    for (bsp_get_tag(&status, &tag); status >= 0; bsp_get_tag(&status, &tag)) {
        if (tag < 0) {
            bsp_move(block, sizeof block);
            n = (int)block[0];
            continue;
        }
        if (first < 0)
            first = tag;
        bsp_move(rows[tag - first], sizeof rows[0]);
        nrows++;
    }
    int b = n / p;
    bsp_sync();

    for (int dst = 0; dst < p; dst++)
        bsp_put(dst, &block[1], x, s * b * (int)sizeof(double), b * (int)sizeof(double));
    int t = sizeof(int);
    bsp_set_tagsize(&t);
    bsp_sync();

    for (int r = 0; r < nrows; r++) {
        double y = 0.0;
        for (int j = 0; j < n; j++)
            y += rows[r][j] * x[j];
        int row = first + r;
        ebsp_send_up(&row, &y, sizeof y);
    }
    bsp_end();
    return 0;
}
