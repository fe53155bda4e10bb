#include <e_bsp.h>

int main(void)
{
    bsp_begin(0); /* as some board kernels wrote it */
    int s = bsp_pid(0), p = bsp_nprocs(0);
    bsp_sync(0);
    ebsp_barrier(s);
    int *local = ebsp_local_address(0x100);
    if (s == 0) {
        int *chunk;
        int size = ebsp_open_down_stream((void **)&chunk, 0);
        int got = ebsp_move_chunk_down((void **)&chunk, 0u, 0);
        ebsp_message("%d of %d: chunk size %d, first chunk %d bytes: %d %d %d %d", s, p, size, got,
                     chunk[0], chunk[1], chunk[2], chunk[3]);
        ebsp_close_down_stream(0);
    } else {
        ebsp_message("%d of %d: tagsize %d, local %d..%d, time %d", s, p, ebsp_get_tagsize(1),
                     local[0], local[7], bsp_time(0) >= 0.0f && ebsp_host_time(0) >= 0.0f);
    }
    ebsp_raw_time(0);
    ebsp_host_sync(0);
    bsp_end(0);
    return 0;
}
