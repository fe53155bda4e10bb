/* The kernel side of ebsp_write/ebsp_read: data the host wrote at fixed
 * offsets, reached with ebsp_local_address; pointers handed to the host
 * through local memory (a global, an external block, a local address). */
#include <e_bsp.h>

int from_host; /* the host writes here through the pointer we hand it */

int main(void)
{
    bsp_begin();
    int *in = ebsp_local_address(0x5000);
    int sum = 0;
    for (int i = 0; i < 16; i++)
        sum += in[i];
    *(int *)ebsp_local_address(0x6000) = sum;
    int *ext = ebsp_ext_malloc(4 * sizeof(int));
    void **handed = ebsp_local_address(0x7000);
    handed[0] = &from_host;
    handed[1] = ext;
    handed[2] = ebsp_local_address(0x100);
    ebsp_host_sync(); /* the host reads and writes in its callback */
    ebsp_message("sum %d; the host wrote %d into my global and %d %d %d %d into external memory",
                 sum, from_host, ext[0], ext[1], ext[2], ext[3]);
    ebsp_free(ext);
    bsp_end();
    return 0;
}
