/* Five chunks of four ints up, with and without prealloc in turn. Core 1
 * sets the chunk size to 8 bytes after filling chunk 2: the board's
 * library stores the size in the chunk's first int and sends the whole
 * chunk all the same. */
#include <e_bsp.h>

int main(void)
{
    bsp_begin();
    int s = bsp_pid();
    int *chunk = 0;
    int size = ebsp_open_up_stream((void **)&chunk, 0);
    ebsp_message("open -> %d", size);
    ebsp_message("open again -> %d", ebsp_open_up_stream((void **)&chunk, 0));
    for (int k = 0; k < 5; k++) {
        for (int i = 0; i < 4; i++)
            chunk[i] = 100 * s + 4 * k + i;
        if (s == 1 && k == 2)
            ebsp_set_up_chunk_size(0, 8);
        int *sent = chunk;
        size = ebsp_move_chunk_up((void **)&chunk, 0, k % 2);
        ebsp_message("chunk %d -> %d, %s buffer", k, size, chunk == sent ? "same" : "other");
    }
    ebsp_close_up_stream(0);
    ebsp_close_up_stream(0);
    ebsp_message("move chunk down -> %d", ebsp_move_chunk_down((void **)&chunk, 0, 0));
    ebsp_close_down_stream(0);
    bsp_end();
    return 0;
}
