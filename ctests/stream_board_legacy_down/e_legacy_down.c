/* Core 0 reads its down stream as the board's library serves it: open
 * returns the largest chunk size and starts fetching the first chunk,
 * which is not yet "current" (closing then says the stream is closed);
 * after the end with prealloc the last chunk comes once more; moving the
 * cursor past either end prints the board's text. */
#include <e_bsp.h>

static void chunk(const char *what, int prealloc)
{
    int *c = 0;
    int n = ebsp_move_chunk_down((void **)&c, 0, prealloc);
    if (c)
        ebsp_message("%s: %d bytes from %d", what, n, c[0]);
    else
        ebsp_message("%s: %d bytes, address NULL", what, n);
}

int main(void)
{
    bsp_begin();
    void *address = 0;
    if (bsp_pid() == 1) {
        ebsp_message("move chunk down -> %d", ebsp_move_chunk_down(&address, 0, 0));
        ebsp_close_up_stream(3);
        bsp_end();
        return 0;
    }
    ebsp_message("open -> %d", ebsp_open_down_stream(&address, 0));
    ebsp_message("open again -> %d", ebsp_open_down_stream(&address, 0));
    ebsp_close_down_stream(0);
    for (int k = 0; k < 5; k++)
        chunk("chunk", 1);
    chunk("again", 0);
    chunk("again", 0);
    ebsp_move_down_cursor(0, 1);
    ebsp_move_down_cursor(0, -2);
    chunk("two back", 0);
    ebsp_move_down_cursor(0, -5);
    chunk("five back", 0);
    ebsp_message("move chunk up -> %d", ebsp_move_chunk_up(&address, 0, 0));
    ebsp_message("open up -> %d", ebsp_open_up_stream(&address, 0));
    ebsp_message("open 1 -> %d", ebsp_open_down_stream(&address, 1));
    ebsp_close_down_stream(0);
    ebsp_close_down_stream(0);
    bsp_end();
    return 0;
}
