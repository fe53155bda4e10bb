/* A stream written up by core 0 in one run is read down by core 1 in the
 * next, then handed back to core 0 within that run. The host tells the
 * kernel which run it is through local memory offset 0. */
#include <e_bsp.h>
#include <limits.h>

static void write_up(void)
{
    ebsp_stream up;
    bsp_stream_open(&up, 0);
    int token[2][8];
    for (int k = 0; k < 5; k++) {
        for (int j = 0; j < 8; j++)
            token[k % 2][j] = 10 * k + j;
        int size = k == 4 ? 12 : 32; /* a short last token: 16 bytes up, a multiple of 8 */
        int wrote = bsp_stream_move_up(&up, token[k % 2], size, k % 2);
        ebsp_message("moved up token %d: %d bytes", k, wrote);
    }
    bsp_stream_close(&up);
}

static void read_down(void)
{
    ebsp_stream down;
    bsp_stream_open(&down, 0);
    int *token, size;
    while ((size = bsp_stream_move_down(&down, (void **)&token, 0)) > 0)
        ebsp_message("read down %d bytes starting %d, %d", size, token[0], token[1]);
    bsp_stream_close(&down);
}

int main(void)
{
    bsp_begin();
    int run = *(int *)ebsp_local_address(0);
    int s = bsp_pid();
    if (run == 0 && s == 0)
        write_up();
    if (run == 1 && s == 1)
        read_down();
    bsp_sync(); /* core 1 has closed the stream: core 0 may open it */
    if (run == 1 && s == 0) {
        ebsp_stream again;
        bsp_stream_open(&again, 0);
        bsp_stream_seek(&again, INT_MAX);
        bsp_stream_seek(&again, -2);
        int *token;
        int size = bsp_stream_move_down(&again, (void **)&token, 1);
        ebsp_message("second last token: %d bytes starting %d", size, token[0]);
        bsp_stream_close(&again);
    }
    bsp_end();
    return 0;
}
