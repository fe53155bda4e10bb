/* Misuse the board did not survive (it crashed, or wrote over memory):
 * libebsp prints a BSP ERROR naming the call, the call returns 0 or does
 * nothing, and the run goes on. */
#include <e_bsp.h>

static char data[64];

static void core0(void)
{
    ebsp_stream s0, s1, bad;
    void *token;
    int got = bsp_stream_open(&bad, -1);
    ebsp_message("open -1 -> %d", got);
    bsp_sync(); /* core 1 has stream 1 open now */
    got = bsp_stream_open(&s1, 1);
    ebsp_message("open 1 -> %d", got);
    got = bsp_stream_move_down(&s1, &token, 0);
    ebsp_message("move down on core 1's stream -> %d", got);
    got = bsp_stream_open(&s0, 0);
    ebsp_message("open 0 -> %d", got);
    got = bsp_stream_move_up(&s0, 0, 8, 1);
    ebsp_message("move up NULL -> %d", got);
    got = bsp_stream_move_up(&s0, data, -100, 1);
    ebsp_message("move up -100 bytes -> %d", got);
    bsp_stream_close(&s0);
    bsp_stream_close(&s0);
    got = bsp_stream_move_down(&s0, &token, 0);
    ebsp_message("move down on a closed stream -> %d", got);
    bsp_stream_seek(&s0, 1);

    void *address = 0;
    got = ebsp_move_chunk_down(&address, 0, 0);
    ebsp_message("move chunk down, not open -> %d", got);
    got = ebsp_move_chunk_up(&address, 1, 0);
    ebsp_message("move chunk up, not open -> %d", got);
    ebsp_set_up_chunk_size(1, 8);
    ebsp_set_up_chunk_size(5, 8);
    ebsp_move_down_cursor(1, 1);
    ebsp_reset_down_cursor(1);
    bsp_sync();
    bsp_sync();
}

int main(void)
{
    bsp_begin();
    if (bsp_pid() == 0) {
        core0();
    } else {
        ebsp_stream mine;
        bsp_stream_open(&mine, 1);
        bsp_sync();
        bsp_sync();
        bsp_stream_close(&mine);
        bsp_sync();
    }
    ebsp_message("still running");
    bsp_end();
    return 0;
}
