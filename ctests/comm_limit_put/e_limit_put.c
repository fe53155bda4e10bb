/* Puts over EBSP_COMM_LIMIT_MB in one superstep are a clear error, as
 * messages are (comm_limit); under it, every put lands, the last one to a
 * byte winning. The host chooses the number of 4 KiB puts. */
#include <e_bsp.h>

char target[4096];
char source[4096];

int main(void)
{
    bsp_begin();
    int count = 0, status;
    bsp_get_tag(&status, NULL);
    bsp_move(&count, sizeof count);
    bsp_push_reg(target, sizeof target);
    bsp_sync();
    int s = bsp_pid(), other = (s + 1) % bsp_nprocs();
    int n = s == 0 ? count : 1; /* one core over the limit: one report */
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < 4096; k += 64)
            source[k] = (char)(i + s);
        bsp_put(other, source, target, 0, sizeof source);
    }
    bsp_sync();
    if (s == 1)
        ebsp_message("target[0] %d target[4032] %d", target[0], target[4032]);
    bsp_end();
    return 0;
}
