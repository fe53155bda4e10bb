#include <host_bsp.h>
#include <stdio.h>

static int run(int count)
{
    int none = 0;
    ebsp_send_down(1, NULL, count > 100 ? &none : &count, sizeof count);
    ebsp_send_down(0, NULL, &count, sizeof count);
    return ebsp_spmd();
}

int main(int argc, char **argv)
{
    if (!bsp_init("e_limit.elf", argc, argv) || !bsp_begin(2))
        return 1;
    printf("host: 1000 messages: spmd %d\n", run(1000));
    printf("host: 100 messages: spmd %d\n", run(100));
    bsp_end();
    return 0;
}
