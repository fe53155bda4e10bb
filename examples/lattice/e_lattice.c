/* A 2D periodic lattice spread over the cores as a grid (declareTopology),
 * each core holding an NX x NY block with a one-site halo. Every step
 * exchanges the four edges with the neighbours through persistent channels
 * declared once, and overlaps the exchange with the interior sites, which
 * need no halo:
 *     arm the four receives, pack and start the four sends,
 *     update the interior, wait for the halos, update the edge sites.
 * At the end a global sum (sumDouble, reproducible), and every core sends
 * its block up for the host to check against a sequential computation. */
#include <e_bsp.h>
#include <lqcd_msg.h>
#include <string.h>

#include "lattice.h"

static double u[NY + 2][NX + 2], v[NY + 2][NX + 2]; /* [1..NY][1..NX] is the block */
static double in[4][NX > NY ? NX : NY], out[4][NX > NY ? NX : NY];

enum { FROM_LEFT, FROM_RIGHT, FROM_DOWN, FROM_UP }; /* receive buffer names */

static void update(double (*a)[NX + 2], double (*b)[NX + 2], int j, int i)
{
    b[j][i] = average(a[j][i - 1], a[j][i + 1], a[j - 1][i], a[j + 1][i]);
}

int main(void)
{
    bsp_begin();
    int p = bsp_nprocs(), s = bsp_pid();
    int px = 1;
    while (px * px < p)
        px *= 2; /* 16 cores: 4x4, 64: 8x8, 8: 4x2 */
    int dims[2] = {px, p / px}, c[2];
    if (initMachine() != 0 || (declareTopology(dims, 2, s), getGridCoordinates(c)) != 0)
        bsp_abort("topology: %s", getErrorString());
    for (int j = 1; j <= NY; j++)
        for (int i = 1; i <= NX; i++)
            u[j][i] = initial(c[0] * NX + i - 1, c[1] * NY + j - 1);

    /* the channels, once: a column travels in x, a row in y */
    int col = NY * sizeof(double), row = NX * sizeof(double);
    void *rx[4] = {
        declareReceive(in[FROM_LEFT], col, FROM_LEFT), declareReceive(in[FROM_RIGHT], col, FROM_RIGHT),
        declareReceive(in[FROM_DOWN], row, FROM_DOWN), declareReceive(in[FROM_UP], row, FROM_UP),
    };
    void *tx[4] = {
        declareSendRelative(out[0], col, +1, FROM_LEFT), /* my right column is their left halo */
        declareSendRelative(out[1], col, -1, FROM_RIGHT),
        declareSendRelative(out[2], row, +2, FROM_DOWN), /* my top row is their bottom halo */
        declareSendRelative(out[3], row, -2, FROM_UP),
    };
    for (int d = 0; d < 4; d++)
        if (!rx[d] || !tx[d])
            bsp_abort("declarations: %s", getErrorString());

    double (*a)[NX + 2] = u, (*b)[NX + 2] = v;
    for (int step = 0; step < STEPS; step++) {
        for (int d = 0; d < 4; d++)
            startReceive(rx[d]);
        for (int j = 0; j < NY; j++) {
            out[0][j] = a[j + 1][NX];
            out[1][j] = a[j + 1][1];
        }
        memcpy(out[2], &a[NY][1], row);
        memcpy(out[3], &a[1][1], row);
        for (int d = 0; d < 4; d++)
            startSend(tx[d]);

        for (int j = 2; j < NY; j++) /* the interior, while the halos travel */
            for (int i = 2; i < NX; i++)
                update(a, b, j, i);

        if (waitForMultiple(rx, 4, 10000) != 1)
            bsp_abort("halo: %s", getErrorString());
        for (int j = 0; j < NY; j++) {
            a[j + 1][0] = in[FROM_LEFT][j];
            a[j + 1][NX + 1] = in[FROM_RIGHT][j];
        }
        memcpy(&a[0][1], in[FROM_DOWN], row);
        memcpy(&a[NY + 1][1], in[FROM_UP], row);
        for (int i = 1; i <= NX; i++) {
            update(a, b, 1, i);
            update(a, b, NY, i);
        }
        for (int j = 2; j < NY; j++) {
            update(a, b, j, 1);
            update(a, b, j, NX);
        }
        /* the out buffers are packed again next step: the sends must be done */
        if (waitForMultiple(tx, 4, 10000) != 1)
            bsp_abort("sends: %s", getErrorString());
        double (*t)[NX + 2] = a;
        a = b;
        b = t;
    }

    static struct block up;
    up.cx = c[0];
    up.cy = c[1];
    up.partial = 0;
    for (int j = 1; j <= NY; j++)
        for (int i = 1; i <= NX; i++) {
            up.u[j - 1][i - 1] = a[j][i];
            up.partial += a[j][i];
        }
    up.total = sumDouble(up.partial);
    ebsp_send_up(&s, &up, sizeof up);
    shutdownMachine();
    bsp_end();
    return 0;
}
