/* As on the board: a move down with preload moves the cursor past the
 * preloaded token too; a move up writes at the cursor and ends the stream
 * after its token; a preloaded token is handed out by the next move down
 * even if the stream changed meanwhile; a seek (even by 0) drops it. */
#include <e_bsp.h>
#include <limits.h>

static ebsp_stream s;

static void down(const char *what, int preload)
{
    int *t = 0;
    int n = bsp_stream_move_down(&s, (void **)&t, preload);
    if (n)
        ebsp_message("%s: %d bytes, first %d", what, n, t[0]);
    else
        ebsp_message("%s: end%s", what, t ? "" : " (NULL)");
}

int main(void)
{
    bsp_begin();
    int up[4] = {500, 501, 502, 503};
    int up2[4] = {900, 901, 902, 903};
    if (bsp_pid() == 0) {
        ebsp_message("open -> %d", bsp_stream_open(&s, 0));
        down("down, preload", 1);                 /* token 0; token 1 preloaded */
        ebsp_message("up 8 bytes -> %d", bsp_stream_move_up(&s, up, 8, 1)); /* over token 2 */
        down("down", 0);                          /* the preloaded token 1 */
        down("down", 0);                          /* the end, after the token moved up */
        bsp_stream_seek(&s, -1);
        down("back 1, down", 0);                  /* the token moved up */
        bsp_stream_seek(&s, -2);
        down("back 2, down, preload", 1);         /* token 1; the token moved up preloaded */
        bsp_stream_seek(&s, 0);                   /* drops it */
        down("seek 0, down", 0);
        bsp_stream_seek(&s, INT_MIN);
        ebsp_message("up 16 bytes -> %d", bsp_stream_move_up(&s, up2, 16, 0)); /* over token 0 */
        bsp_stream_seek(&s, INT_MIN);
        down("start, down, preload", 1);
        down("down, preload", 1);
        down("down, preload", 1);                 /* the end swapped out: the token again */
        bsp_stream_close(&s);
    }
    bsp_sync(); /* core 0 has closed the stream: core 1 may open it */
    if (bsp_pid() == 1) {
        ebsp_message("open -> %d", bsp_stream_open(&s, 0));
        down("down", 1);
        down("down", 1);
        bsp_stream_close(&s);
    }
    bsp_end();
    return 0;
}
