/* e_dma_copy, the SDK's blocking DMA copy that board kernels call through
 * e-lib.h (EBSP's memorybench example). */
#include <host_bsp.h>

int main(int argc, char **argv)
{
    if (!bsp_init("e_dma_e_copy.elf", argc, argv) || !bsp_begin(2))
        return 1;
    ebsp_spmd();
    bsp_end();
    return 0;
}
