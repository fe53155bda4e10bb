/* Stream throughput, kernel side. The host writes the mode and the number
 * of passes at local memory offset 0x7f00; the kernel streams its stream down
 * (reading every int of each token) or up (sending a filled token), timing
 * itself, and leaves bytes moved and seconds at 0x7f40 for the host. */
#include <e_bsp.h>
#include <limits.h>

enum mode { DOWN = 0, DOWN_PRELOAD = 1, UP_WAIT = 2, UP_DOUBLE = 3 };

struct params {
    int mode, passes, token, tokens; /* tokens per stream */
};

struct outcome {
    double bytes, seconds;
    long long check;
};

static long long stream_down(int id, int passes, int preload, double *bytes)
{
    ebsp_stream s;
    bsp_stream_open(&s, id);
    long long check = 0;
    for (int pass = 0; pass < passes; pass++) {
        int *token, size;
        while ((size = bsp_stream_move_down(&s, (void **)&token, preload)) > 0) {
            for (int i = 0; i < size / 4; i++)
                check += token[i];
            *bytes += size;
        }
        bsp_stream_seek(&s, INT_MIN);
    }
    bsp_stream_close(&s);
    return check;
}

static long long stream_up(int id, const struct params *in, int wait, double *bytes)
{
    int *buf[2] = {ebsp_malloc(in->token), ebsp_malloc(in->token)};
    long long sent = 0;
    for (int pass = 0; pass < in->passes; pass++) {
        ebsp_stream s;
        bsp_stream_open(&s, id); /* reopening starts writing at the start again */
        for (int k = 0; k < in->tokens; k++) {
            int *b = buf[k % 2]; /* fill one buffer while the other goes up */
            for (int i = 0; i < in->token / 4; i++)
                b[i] = i;
            int n = bsp_stream_move_up(&s, b, in->token, wait);
            *bytes += n;
            sent += n;
        }
        bsp_stream_close(&s);
    }
    ebsp_free(buf[0]);
    ebsp_free(buf[1]);
    return sent;
}

int main(void)
{
    bsp_begin();
    int s = bsp_pid(), p = bsp_nprocs();
    /* at the top of local memory, clear of the stream buffers, which are
     * allocated from offset 0 upwards */
    struct params *in = ebsp_local_address(0x7f00);
    struct outcome *out = ebsp_local_address(0x7f40);
    out->bytes = 0;
    bsp_sync();
    float start = bsp_time();
    switch (in->mode) {
    case DOWN:
    case DOWN_PRELOAD:
        out->check = stream_down(s, in->passes, in->mode == DOWN_PRELOAD, &out->bytes);
        break;
    default:
        out->check = stream_up(p + s, in, in->mode == UP_WAIT, &out->bytes);
    }
    out->seconds = bsp_time() - start;
    bsp_end();
    return 0;
}
