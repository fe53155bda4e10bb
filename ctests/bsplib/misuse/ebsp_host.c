/* The EBSP host side of the mixing cases of misuse.c. */
#include <host_bsp.h>

int ebsp_kernel_calling_bsplib(void); /* ebsp_kernel.c */

int ebsp_host_init(void)
{
    return bsp_init("e_none.elf", 0, NULL);
}

int ebsp_host_begin(int n)
{
    return bsp_begin(n);
}

static int noop(void)
{
    return 0;
}

int ebsp_host_load_noop(void)
{
    ebsp_register_kernel("noop", noop);
    return bsp_init("noop", 0, NULL) && bsp_begin(2);
}

int ebsp_host_run_kernel_calling_bsplib(void)
{
    ebsp_register_kernel("mixed", ebsp_kernel_calling_bsplib);
    if (!bsp_init("mixed", 0, NULL) || !bsp_begin(2))
        return -1;
    int ok = ebsp_spmd();
    bsp_end();
    return ok;
}
