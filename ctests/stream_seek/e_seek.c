/* bsp_stream_seek back and forth over ten tokens (token k holds k), with
 * and without preloading, clamped at both ends. As on the board, a move
 * down with preload moves the cursor past the preloaded token too, and a
 * seek drops that token: the seek counts from the token after it. */
#include <e_bsp.h>
#include <limits.h>

static ebsp_stream s;

static void next(int preload)
{
    int *token;
    if (bsp_stream_move_down(&s, (void **)&token, preload) > 0)
        ebsp_message("token %d", token[0]);
    else
        ebsp_message("end of stream");
}

static void seek(int delta)
{
    bsp_stream_seek(&s, delta);
    ebsp_message("seek %d", delta);
}

int main(void)
{
    bsp_begin();
    bsp_stream_open(&s, 0);
    next(1);
    seek(3); /* from token 2 (token 1 was preloaded, and is dropped) to 5 */
    next(1); /* 5, preloading 6 */
    seek(-2); /* from 7 to 5 */
    next(0);
    seek(INT_MIN);
    next(0);
    seek(INT_MAX);
    next(1);
    seek(-1);
    next(0);
    seek(-100);
    next(0);
    seek(100);
    seek(-3);
    next(1);
    next(1);
    next(0);
    next(1);
    bsp_stream_close(&s);
    bsp_end();
    return 0;
}
