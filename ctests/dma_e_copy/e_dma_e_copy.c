/* Copies a local block to external memory and back with e_dma_copy; the
 * bytes are there when it returns. */
#include <e-lib.h>
#include <e_bsp.h>
#include <string.h>

int main(void)
{
    bsp_begin();
    enum { N = 4096 };
    long long *local = ebsp_malloc(N), *back = ebsp_malloc(N), *ext = ebsp_ext_malloc(N);
    for (int i = 0; i < N / 8; i++)
        local[i] = i + 1000 * bsp_pid();
    int out = e_dma_copy(ext, local, N);
    int in = e_dma_copy(back, ext, N);
    ebsp_message("e_dma_copy: %d %d, external copy %d, round trip %d", out, in,
                 ext[N / 8 - 1] == N / 8 - 1 + 1000 * bsp_pid(), memcmp(local, back, N) == 0);
    bsp_end();
    return 0;
}
