/* Cores in different LQCD collectives, or in an LQCD collective and
 * bsp_sync: the run is stopped with a report instead of hanging. */
#include <host_bsp.h>
#include <stdio.h>

static void run(const char *kernel)
{
    if (!bsp_init(kernel, 0, NULL) || !bsp_begin(4))
        return;
    int ok = ebsp_spmd();
    printf("%s: spmd %d\n", kernel, ok);
    bsp_end();
}

int main(void)
{
    run("e_div_coll.elf");
    run("e_div_sync.elf");
    return 0;
}
