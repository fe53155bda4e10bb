/* With EBSP_CHECKS=0 a put beyond the registered size is not checked. */
#include <e_bsp.h>

long long arr[2];

int main(void)
{
    bsp_begin();
    int s = bsp_pid();
    arr[0] = arr[1] = 0;
    bsp_push_reg(arr, sizeof arr[0]); /* registers only the first element */
    bsp_sync();
    long long v = 40 + s;
    bsp_put((s + 1) % bsp_nprocs(), &v, arr, sizeof arr[0], sizeof v);
    bsp_sync();
    ebsp_message("arr[1] = %lld", arr[1]);
    bsp_end();
    return 0;
}
