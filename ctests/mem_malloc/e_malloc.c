/* ebsp_malloc limits on the default 32 KiB local memory, reuse after
 * ebsp_free, external memory, misuse of ebsp_free (silent at the board level,
 * as on the board: ctests/misuse_free; the run goes on),
 * and a fresh local memory in every run. */
#include <e_bsp.h>

static long offset_of(void *p)
{
    return (long)((char *)p - (char *)ebsp_local_address(0));
}

int main(void)
{
    bsp_begin();
    int s = bsp_pid();
    void *big = ebsp_malloc(0x9000);
    void *a = ebsp_malloc(0x2000);
    ebsp_message("0x9000: %s, 0x2000: at offset %#lx", big ? "allocated" : "NULL", offset_of(a));
    void *b = ebsp_malloc(0x6000);
    void *c = ebsp_malloc(8);
    ebsp_message("0x6000 more: %s, then 8 more: %s", b ? "allocated" : "NULL", c ? "allocated" : "NULL");
    ebsp_free(a);
    void *d = ebsp_malloc(0x1000);
    ebsp_message("after freeing the first block, 0x1000 lands at offset %#lx", offset_of(d));
    ebsp_free(d);
    ebsp_free(b);
    void *all = ebsp_malloc(0x8000);
    ebsp_message("all 0x8000 bytes at once: %s", all ? "allocated" : "NULL");
    ebsp_free(all);
    if (s == 0) {
        ebsp_free(all);                      /* freed already */
        ebsp_free((char *)ebsp_local_address(0) + 0x100); /* not a block */
        ebsp_message("still running after the bad frees");
    }
    char *ext = ebsp_ext_malloc(1 << 20);
    char *huge = ebsp_ext_malloc(40u << 20);
    ebsp_message("1 MiB external: %s, 40 MiB external: %s", ext ? "allocated" : "NULL", huge ? "allocated" : "NULL");
    if (ext) {
        ext[(1 << 20) - 1] = 1;
        ebsp_free(ext);
    }
    bsp_sync();
    /* left allocated: the next run starts with all local memory free again */
    ebsp_malloc(0x4000);
    bsp_end();
    return 0;
}
