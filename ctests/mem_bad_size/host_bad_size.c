/* A bad EBSP_LOCAL_MEM makes bsp_begin fail with an explanation. */
#include <host_bsp.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (!bsp_init("e_size.elf", argc, argv))
        return 1;
    printf("bsp_begin: %d\n", bsp_begin(1));
    return 0;
}
