/* Moves up rounded to a multiple of 8: larger than the token size with a
 * warning, refused when the stream is full; reading a large token back
 * truncates it; a token of 0 bytes ends the stream. */
#include <e_bsp.h>
#include <limits.h>

int main(void)
{
    bsp_begin();
    int v[16];
    for (int i = 0; i < 16; i++)
        v[i] = 10 + i;
    ebsp_stream s;
    ebsp_message("open -> %d", bsp_stream_open(&s, 1));
    ebsp_message("up 33 bytes -> %d", bsp_stream_move_up(&s, v, 33, 1));
    ebsp_message("up 17 bytes -> %d", bsp_stream_move_up(&s, v + 8, 17, 1));
    ebsp_message("up 1 byte -> %d", bsp_stream_move_up(&s, v, 1, 1));
    ebsp_message("up 0 bytes -> %d", bsp_stream_move_up(&s, v, 0, 1));
    bsp_stream_seek(&s, INT_MIN);
    int *t = 0;
    int n = bsp_stream_move_down(&s, (void **)&t, 0);
    ebsp_message("down: %d bytes, %d..%d", n, t[0], t[n / 4 - 1]);
    n = bsp_stream_move_down(&s, (void **)&t, 1);
    ebsp_message("down: %d bytes, %d..%d", n, t[0], t[3]);
    ebsp_message("down: %d", bsp_stream_move_down(&s, (void **)&t, 1));
    bsp_stream_seek(&s, -1);
    bsp_stream_seek(&s, -1);
    ebsp_message("up 0 bytes at the start -> %d", bsp_stream_move_up(&s, v, 0, 1));
    bsp_stream_seek(&s, INT_MIN);
    ebsp_message("down: %d", bsp_stream_move_down(&s, (void **)&t, 0));
    bsp_stream_close(&s);
    bsp_end();
    return 0;
}
