#include <e_bsp.h>

int main(void)
{
    bsp_begin();
    void *buf = &buf;
    ebsp_message("open: %d", bsp_stream_open(NULL, 0));
    int moved = bsp_stream_move_down(NULL, &buf, 0); /* sets the buffer to NULL, as the board did first */
    ebsp_message("move down: %d, buffer %s", moved, buf ? "set" : "NULL");
    ebsp_message("move up: %d", bsp_stream_move_up(NULL, &buf, 8, 1));
    bsp_stream_seek(NULL, 1);
    bsp_stream_close(NULL);
    ebsp_stream s;
    int size = bsp_stream_open(&s, 0);
    int *token = 0;
    int n = bsp_stream_move_down(&s, (void **)&token, 0);
    ebsp_message("a real stream: token size %d, moved %d, last int %d", size, n, token ? token[3] : -1);
    bsp_stream_close(&s);
    bsp_end();
    return 0;
}
