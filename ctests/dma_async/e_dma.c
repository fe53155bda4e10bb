/* DMA: a double-buffered sum of an external vector (transfers overlap the
 * summing), in-order completion of a chain of dependent transfers, and a
 * destination that holds its old bytes until ebsp_dma_wait (the engine
 * copies no earlier). With EBSP_DMA_SYNC=1 every transfer is complete when
 * ebsp_dma_push returns. */
#include <e_bsp.h>
#include <stdlib.h>
#include <string.h>

enum { BLOCK_INTS = 1024, BLOCKS = 64, CHAIN = 32, CHAIN_BYTES = 8192, BIG = 1 << 20 };

static long long double_buffered_sum(const int *ext)
{
    int *buf[2] = {ebsp_malloc(BLOCK_INTS * sizeof(int)), ebsp_malloc(BLOCK_INTS * sizeof(int))};
    ebsp_dma_handle h[2];
    long long sum = 0;
    ebsp_dma_push(&h[0], buf[0], ext, BLOCK_INTS * sizeof(int));
    for (int b = 0; b < BLOCKS; b++) {
        if (b + 1 < BLOCKS)
            ebsp_dma_push(&h[(b + 1) % 2], buf[(b + 1) % 2], ext + (b + 1) * BLOCK_INTS,
                          BLOCK_INTS * sizeof(int));
        ebsp_dma_wait(&h[b % 2]);
        for (int i = 0; i < BLOCK_INTS; i++)
            sum += buf[b % 2][i];
    }
    ebsp_free(buf[0]);
    ebsp_free(buf[1]);
    return sum;
}

/* Transfer k copies what transfer k-1 wrote: only in-order completion
 * leaves the first pattern in the last region. Waits only for the last. */
static int chain_in_order(char *ext)
{
    for (int i = 0; i < CHAIN_BYTES; i++)
        ext[i] = (char)(i * 7 + bsp_pid());
    ebsp_dma_handle h[CHAIN];
    for (int k = 0; k < CHAIN; k++)
        ebsp_dma_push(&h[k], ext + (k + 1) * CHAIN_BYTES, ext + k * CHAIN_BYTES, CHAIN_BYTES);
    ebsp_dma_wait(&h[CHAIN - 1]);
    return memcmp(ext, ext + CHAIN * CHAIN_BYTES, CHAIN_BYTES) == 0;
}

int main(void)
{
    bsp_begin();
    int s = bsp_pid();
    int sync_mode = getenv("EBSP_DMA_SYNC") && atoi(getenv("EBSP_DMA_SYNC")) == 1;

    int n = BLOCK_INTS * BLOCKS;
    int *vec = ebsp_ext_malloc(n * sizeof(int));
    for (int i = 0; i < n; i++)
        vec[i] = i + s;
    long long want = (long long)n * (n - 1) / 2 + (long long)n * s;
    ebsp_message("double-buffered sum %s", double_buffered_sum(vec) == want ? "correct" : "WRONG");
    ebsp_free(vec);

    char *chain = ebsp_ext_malloc((CHAIN + 1) * CHAIN_BYTES);
    ebsp_message("chain of %d dependent transfers %s", CHAIN, chain_in_order(chain) ? "in order" : "OUT OF ORDER");
    ebsp_free(chain);

    char *src = ebsp_ext_malloc(BIG), *dst = ebsp_ext_malloc(BIG);
    memset(src, 0x5a, BIG);
    memset(dst, 0, BIG);
    ebsp_dma_handle big;
    ebsp_dma_push(&big, dst, src, BIG);
    if (sync_mode)
        ebsp_message("complete when ebsp_dma_push returned: %s", memcmp(dst, src, BIG) == 0 ? "yes" : "no");
    else
        ebsp_message("before ebsp_dma_wait the destination is untouched: %s",
                     dst[0] == 0 && memcmp(dst, dst + 1, BIG - 1) == 0 ? "yes" : "no");
    ebsp_dma_wait(&big);
    ebsp_message("after ebsp_dma_wait the copy is %s", memcmp(dst, src, BIG) == 0 ? "complete" : "INCOMPLETE");
    ebsp_dma_handle none;
    memset(&none, 0, sizeof none);
    ebsp_dma_wait(&none); /* describes no transfer: returns at once */
    ebsp_free(src);
    ebsp_free(dst);
    bsp_end();
    return 0;
}
