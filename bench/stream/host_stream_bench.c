/* Stream throughput benchmark: MB/s moving tokens down and up, with and
 * without preload (down) or double buffering (up, without waiting for
 * completion). Usage: host_stream_bench [cores] [token bytes] [MiB per core]
 * [passes]. Each core has its own down and up stream; the aggregate rate is
 * the bytes all cores moved over the slowest core's time. */
#include <host_bsp.h>
#include <stdio.h>
#include <stdlib.h>

struct params {
    int mode, passes, token, tokens;
};

struct outcome {
    double bytes, seconds;
    long long check;
};

static const char *mode_names[] = {"down", "down, preload", "up, wait", "up, double-buffered"};

int main(int argc, char **argv)
{
    int cores = argc > 1 ? atoi(argv[1]) : 1;
    int token = argc > 2 ? atoi(argv[2]) : 4096;
    int mib = argc > 3 ? atoi(argv[3]) : 4;
    int passes = argc > 4 ? atoi(argv[4]) : 8;
    if (!bsp_init("e_stream_bench.elf", argc, argv) || !bsp_begin(cores))
        return 1;
    int tokens = (int)((long long)mib * (1 << 20) / token);
    int bytes = tokens * token;
    int *data = malloc(bytes);
    for (int i = 0; i < bytes / 4; i++)
        data[i] = i & 0xff;
    for (int s = 0; s < cores; s++)
        if (!bsp_stream_create(bytes, token, data))
            return 1;
    for (int s = 0; s < cores; s++)
        if (!bsp_stream_create(bytes, token, NULL))
            return 1;
    free(data);
    printf("stream throughput: %d core(s), %d-byte tokens, %d MiB per core and pass, %d passes\n",
           cores, token, mib, passes);
    for (int mode = 0; mode < 4; mode++) {
        struct params in = {mode, passes, token, tokens};
        for (int s = 0; s < cores; s++)
            ebsp_write(s, &in, 0x7f00, sizeof in);
        if (!ebsp_spmd())
            return 1;
        double total = 0, slowest = 0;
        for (int s = 0; s < cores; s++) {
            struct outcome out;
            ebsp_read(s, 0x7f40, &out, sizeof out);
            total += out.bytes;
            if (out.seconds > slowest)
                slowest = out.seconds;
        }
        printf("  %-20s %9.1f MB/s  (%.0f MB in %.3f s)\n", mode_names[mode],
               total / slowest / 1e6, total / 1e6, slowest);
    }
    bsp_end();
    return 0;
}
