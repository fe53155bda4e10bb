/* Streaming dot product, kernel side: this core's slices of x and y come
 * down in tokens (double-buffered, so the next tokens arrive while this
 * one is multiplied); its partial sum goes up in a one-token result stream.
 * Stream ids: 3*s is x, 3*s+1 is y, 3*s+2 the result, for core s. */
#include <e_bsp.h>

int main(void)
{
    bsp_begin();
    int s = bsp_pid();
    ebsp_stream x, y, result;
    if (!bsp_stream_open(&x, 3 * s) || !bsp_stream_open(&y, 3 * s + 1) ||
        !bsp_stream_open(&result, 3 * s + 2))
        bsp_abort("core %d could not open its streams", s);
    double *xs, *ys, partial = 0.0;
    long long count = 0;
    int nx, ny;
    while ((nx = bsp_stream_move_down(&x, (void **)&xs, 1)) > 0 &&
           (ny = bsp_stream_move_down(&y, (void **)&ys, 1)) > 0) {
        if (nx != ny)
            bsp_abort("core %d: tokens of x and y differ (%d and %d bytes)", s, nx, ny);
        for (int i = 0; i < nx / (int)sizeof(double); i++)
            partial += xs[i] * ys[i];
        count += nx / (int)sizeof(double);
    }
    struct { double partial; long long count; } out = {partial, count};
    bsp_stream_move_up(&result, &out, sizeof out, 1);
    bsp_stream_close(&x);
    bsp_stream_close(&y);
    bsp_stream_close(&result);
    bsp_end();
    return 0;
}
