/* Every stream misuse prints a BSP ERROR naming the stream, the call
 * returns its failure value, and the run goes on. */
#include <e_bsp.h>

static char data[64];

static void core0(void)
{
    ebsp_stream s0, s1, missing;
    int got = bsp_stream_open(&missing, 5);
    ebsp_message("open 5 -> %d", got);
    bsp_sync(); /* core 1 has stream 1 open now */
    got = bsp_stream_open(&s1, 1);
    ebsp_message("open 1 -> %d", got);
    got = bsp_stream_open(&s0, 0);
    ebsp_message("open 0 -> %d", got);
    ebsp_stream twice;
    got = bsp_stream_open(&twice, 0);
    ebsp_message("open 0 again -> %d", got);
    void *token;
    got = bsp_stream_move_down(&s0, &token, 1);
    ebsp_message("move down -> %d", got);
    got = bsp_stream_move_up(&s0, data, 16, 1);
    ebsp_message("move up on a stream moving down -> %d", got);
    got = bsp_stream_move_down(&s1, &token, 0);
    ebsp_message("move down on core 1's stream -> %d", got);
    bsp_stream_close(&s0);
    bsp_stream_close(&s0);
    got = bsp_stream_move_down(&s0, &token, 0);
    ebsp_message("move down on a closed stream -> %d", got);

    void *address = 0;
    got = ebsp_open_up_stream(&address, 0);
    ebsp_message("open down stream 0 as up -> %d", got);
    got = ebsp_open_down_stream(&address, 1);
    ebsp_message("open up stream 1 as down -> %d", got);
    got = ebsp_open_down_stream(&address, 7);
    ebsp_message("open down stream 7 -> %d", got);
    ebsp_close_down_stream(0);
    got = ebsp_open_up_stream(&address, 1);
    ebsp_set_up_chunk_size(1, 17);
    ebsp_close_up_stream(1);
    ebsp_message("up stream 1: opened with chunk size %d", got);
    bsp_sync();
    bsp_sync(); /* core 1 has closed stream 1 */

    got = bsp_stream_open(&s1, 1); /* 40 bytes in tokens of 32: 64 bytes of area */
    ebsp_message("open 1 -> %d", got);
    ebsp_message("up 33 bytes -> %d", bsp_stream_move_up(&s1, data, 33, 1));
    ebsp_message("up 32 bytes -> %d", bsp_stream_move_up(&s1, data, 32, 0));
    ebsp_message("up 16 bytes -> %d", bsp_stream_move_up(&s1, data, 16, 1));
    ebsp_message("up 8 bytes -> %d", bsp_stream_move_up(&s1, data, 8, 1));
    ebsp_message("up 1 byte -> %d", bsp_stream_move_up(&s1, data, 1, 1));
    bsp_stream_seek(&s1, -1);
    ebsp_message("move down on a stream moving up -> %d", bsp_stream_move_down(&s1, &token, 0));
    bsp_stream_close(&s1);
    ebsp_message("still running");
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
    bsp_end();
    return 0;
}
