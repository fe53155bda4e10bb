/* The deprecated stream API end to end: chunks moved down with prealloc,
 * a result chunk per chunk moved up with prealloc (alternating buffers),
 * the chunk size set (on the board that stores the size in the chunk's
 * first int, which the kernel then overwrites: chunks go up whole), the
 * down cursor moved and reset. */
#include <e_bsp.h>

int main(void)
{
    bsp_begin();
    int *in = 0, *out = 0;
    int down_size = ebsp_open_down_stream((void **)&in, 0);
    int up_size = ebsp_open_up_stream((void **)&out, 1);
    ebsp_message("down chunks up to %d bytes, up chunks up to %d bytes", down_size, up_size);
    ebsp_set_up_chunk_size(1, 8);
    int size, chunks = 0, alternated = 1;
    int *previous_out = 0;
    while ((size = ebsp_move_chunk_down((void **)&in, 0, 1)) > 0) {
        int sum = 0;
        for (int i = 0; i < size / 4; i++)
            sum += in[i];
        out[0] = sum;
        out[1] = size;
        int *sent = out;
        ebsp_move_chunk_up((void **)&out, 1, 1);
        alternated &= out != sent && (previous_out == 0 || out == previous_out);
        previous_out = sent;
        chunks++;
    }
    ebsp_message("%d chunks; up buffers alternated: %s", chunks, alternated ? "yes" : "no");
    /* The last move down preloaded the end: its buffer swapped in, the
     * chunk before it (the last) is still the spare one. Moving the cursor
     * does not drop it, so the next move down hands the last chunk out
     * again, as on the board; the cursor, now two back, is for the one
     * after. */
    ebsp_move_down_cursor(0, -2);
    ebsp_move_chunk_down((void **)&in, 0, 0);
    ebsp_message("two back from the end: chunk starting %d", in[0]);
    ebsp_reset_down_cursor(0);
    ebsp_move_chunk_down((void **)&in, 0, 0);
    ebsp_message("after reset: chunk starting %d", in[0]);
    ebsp_move_down_cursor(0, 1);
    ebsp_move_chunk_down((void **)&in, 0, 1);
    ebsp_message("one on: chunk starting %d", in[0]);
    ebsp_close_down_stream(0);
    ebsp_close_up_stream(1);
    /* the second down stream is read without prealloc */
    int total = 0;
    ebsp_open_down_stream((void **)&in, 2);
    while ((size = ebsp_move_chunk_down((void **)&in, 2, 0)) > 0)
        total += size;
    ebsp_close_down_stream(2);
    ebsp_message("second down stream: %d bytes", total);
    bsp_end();
    return 0;
}
