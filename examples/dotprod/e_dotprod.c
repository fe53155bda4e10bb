/* Distributed dot product: every core receives its slice of x and y from
 * the host, computes a partial sum, puts it into every core's table of
 * partial sums, and core 0 sends the total up to the host. */
#include <e_bsp.h>

enum { MAXP = 1024, CHUNK = 256 };

double partial[MAXP]; /* partial[s]: core s's part of the sum */

int main(void)
{
    bsp_begin();
    int p = bsp_nprocs(), s = bsp_pid();
    bsp_push_reg(partial, p * (int)sizeof(double));

    /* the host sent two messages: tag 0 is x, tag 1 is y */
    double x[CHUNK], y[CHUNK];
    int n = 0;
    for (int m = 0; m < 2; m++) {
        int tag, status;
        bsp_get_tag(&status, &tag);
        bsp_move(tag == 0 ? x : y, sizeof x);
        n = status / (int)sizeof(double);
    }
    double sum = 0.0;
    for (int i = 0; i < n; i++)
        sum += x[i] * y[i];
    bsp_sync(); /* registration in force; the host's messages are gone */

    for (int dst = 0; dst < p; dst++)
        bsp_put(dst, &sum, partial, s * (int)sizeof(double), sizeof sum);
    bsp_sync();

    double total = 0.0;
    for (int i = 0; i < p; i++)
        total += partial[i];
    if (s == 0) {
        int tag = 42;
        ebsp_send_up(&tag, &total, sizeof total);
    }
    bsp_end();
    return 0;
}
