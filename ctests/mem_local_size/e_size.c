/* EBSP_LOCAL_MEM=64K gives each core 64 KiB of local memory. */
#include <e_bsp.h>

int main(void)
{
    bsp_begin();
    void *p = ebsp_malloc(0x9000);
    void *q = ebsp_malloc(0x7000);
    void *r = ebsp_malloc(8);
    ebsp_message("0x9000: %s, 0x7000 more: %s, 8 more: %s, offset 0xffff: %s, 0x10000: %s",
                 p ? "ok" : "NULL", q ? "ok" : "NULL", r ? "ok" : "NULL",
                 ebsp_local_address(0xffff) ? "ok" : "NULL", ebsp_local_address(0x10000) ? "ok" : "NULL");
    bsp_end();
    return 0;
}
