#include <host_bsp.h>
#include <stdio.h>

static int run(int count)
{
    for (int pid = 0; pid < 2; pid++)
        ebsp_send_down(pid, NULL, &count, sizeof count);
    return ebsp_spmd();
}

int main(int argc, char **argv)
{
    if (!bsp_init("e_limit_put.elf", argc, argv) || !bsp_begin(2))
        return 1;
    printf("host: 1000 puts: spmd %d\n", run(1000));
    printf("host: 100 puts: spmd %d\n", run(100));
    bsp_end();
    return 0;
}
