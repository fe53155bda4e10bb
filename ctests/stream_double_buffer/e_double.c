/* Each core streams 64 KiB (twice its local memory) down in 4 KiB tokens,
 * double-buffered, and sends one 16-byte result token up per token read,
 * double-buffered too (no waiting for completion). */
#include <e_bsp.h>

int main(void)
{
    bsp_begin();
    int s = bsp_pid(), p = bsp_nprocs();
    ebsp_stream down, up;
    int token_size = bsp_stream_open(&down, s);
    bsp_stream_open(&up, p + s);
    int *results[2] = {ebsp_malloc(16), ebsp_malloc(16)};
    void *token = 0;
    int size, tokens = 0, next = 0, in_order = 1, first = 1;
    long long total = 0;
    while ((size = bsp_stream_move_down(&down, &token, 1)) > 0) {
        if (first) {
            /* local memory holds the down stream's two token buffers (it
             * preloads) of an 8-byte header and 4 KiB each, and our two
             * result blocks (a move up sends straight from them, no
             * buffer): 0x8000 - 8240 bytes are left, and not a byte more */
            void *rest = ebsp_malloc(0x8000 - 8240);
            void *more = ebsp_malloc(8);
            ebsp_message("token size %d; local memory left: %s", token_size,
                         rest && !more ? "0x8000 - 8240 bytes" : "WRONG");
            ebsp_free(rest);
            first = 0;
        }
        int *v = token, sum = 0;
        for (int i = 0; i < size / 4; i++) {
            in_order &= v[i] == next++;
            sum += v[i];
        }
        total += sum;
        int *r = results[tokens % 2];
        r[0] = tokens;
        r[1] = sum;
        r[2] = size;
        r[3] = s;
        bsp_stream_move_up(&up, r, 16, 0);
        tokens++;
    }
    ebsp_message("%d tokens, values in order: %s, total %lld", tokens, in_order ? "yes" : "no", total);
    bsp_stream_close(&down);
    bsp_stream_close(&up);
    ebsp_message("after closing, 0x6000 bytes fit again: %s", ebsp_malloc(0x6000) ? "yes" : "no");
    bsp_end();
    return 0;
}
