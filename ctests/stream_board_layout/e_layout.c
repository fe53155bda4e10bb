/* Core 0 moves tokens of various sizes up to stream 2 (from two buffers
 * in turn: a move up without waiting reads its data later); core 1 reads
 * two tokens of stream 0 and moves one up in place of the third. */
#include <e_bsp.h>

int main(void)
{
    bsp_begin();
    int v[2][16];
    if (bsp_pid() == 0) {
        ebsp_stream s;
        bsp_stream_open(&s, 2);
        int sizes[] = {12, 16, 5, 1, 40, 24, 16, 0};
        for (int k = 0; k < 8; k++) {
            for (int i = 0; i < 16; i++)
                v[k % 2][i] = 20 * k + i;
            ebsp_message("up %d bytes -> %d", sizes[k], bsp_stream_move_up(&s, v[k % 2], sizes[k], k % 2));
        }
        bsp_stream_close(&s);
    } else {
        ebsp_stream s;
        bsp_stream_open(&s, 0);
        int *token;
        for (int k = 0; k < 2; k++) {
            int n = bsp_stream_move_down(&s, (void **)&token, 0);
            ebsp_message("down: %d bytes, %d..%d", n, token[0], token[n / 4 - 1]);
        }
        v[0][0] = 77;
        v[0][1] = 78;
        ebsp_message("up 16 bytes -> %d", bsp_stream_move_up(&s, v[0], 16, 1));
        ebsp_message("up 8 bytes -> %d", bsp_stream_move_up(&s, v[0], 8, 1));
        bsp_stream_close(&s);
    }
    bsp_end();
    return 0;
}
