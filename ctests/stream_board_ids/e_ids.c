/* Any core opens any stream that is not in use: core s opens stream 2 - s
 * (core 3: stream -1 would be out of the table; it asks for 3, which does
 * not exist), then core 3 tries them all while the others hold them, and
 * gets them once they are closed. The deprecated streams are each core's
 * own. */
#include <e_bsp.h>

static void first_int(ebsp_stream *s, const char *what)
{
    int *token = 0;
    int size = bsp_stream_move_down(s, (void **)&token, 0);
    ebsp_message("%s: %d bytes, first %d", what, size, size ? token[0] : -1);
}

int main(void)
{
    bsp_begin();
    int s = bsp_pid();
    ebsp_stream mine, other;
    int id = s < 3 ? 2 - s : 3;
    int size = bsp_stream_open(&mine, id);
    ebsp_message("open %d -> %d", id, size);
    if (size)
        first_int(&mine, "stream");
    bsp_sync();
    if (s == 3)
        for (int k = 0; k < 3; k++)
            ebsp_message("open %d -> %d", k, bsp_stream_open(&other, k));
    bsp_sync();
    if (s < 3)
        bsp_stream_close(&mine);
    bsp_sync();
    if (s == 3)
        for (int k = 2; k >= 0; k--) {
            ebsp_message("open %d -> %d", k, bsp_stream_open(&other, k));
            first_int(&other, "stream");
            bsp_stream_close(&other);
        }

    /* deprecated streams: core 1 has a down stream 0 and an up stream 1,
     * core 2 a down stream 0, the others none */
    void *chunk = 0;
    if (s == 1) {
        ebsp_message("open down 0 -> %d", ebsp_open_down_stream(&chunk, 0));
        int n = ebsp_move_chunk_down(&chunk, 0, 0);
        ebsp_message("chunk: %d bytes, first %d", n, ((int *)chunk)[0]);
        ebsp_close_down_stream(0);
        ebsp_message("open up 0 -> %d", ebsp_open_up_stream(&chunk, 0));
        ebsp_message("open up 1 -> %d", ebsp_open_up_stream(&chunk, 1));
        ebsp_close_up_stream(1);
    }
    if (s == 2) {
        ebsp_message("open down 0 -> %d", ebsp_open_down_stream(&chunk, 0));
        int n = ebsp_move_chunk_down(&chunk, 0, 0);
        ebsp_message("chunk: %d bytes, first %d", n, ((int *)chunk)[0]);
        ebsp_close_down_stream(0);
        ebsp_message("open up 1 -> %d", ebsp_open_up_stream(&chunk, 1));
    }
    if (s == 0 || s == 3)
        ebsp_message("open down 0 -> %d", ebsp_open_down_stream(&chunk, 0));
    bsp_end();
    return 0;
}
