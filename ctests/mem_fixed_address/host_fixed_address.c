/* Fixed local addresses, as board kernels use them: the host writes at
 * 0x5000 with ebsp_write, the kernels read there and write at 0x6000 through
 * plain pointers (lowmem.c), and the host reads what they wrote. */
#include <host_bsp.h>
#include <stdio.h>

enum { N = 4 };

int main(int argc, char **argv)
{
    if (!bsp_init("e_fixed_address.elf", argc, argv) || !bsp_begin(N))
        return 1;
    for (int pid = 0; pid < N; pid++) {
        int data[16];
        for (int i = 0; i < 16; i++)
            data[i] = 100 * pid + i;
        ebsp_write(pid, data, 0x5000, sizeof data);
    }
    if (!ebsp_spmd())
        return 1;
    for (int pid = 0; pid < N; pid++) {
        int sum = 0;
        char c = 0;
        ebsp_read(pid, 0x6008, &sum, sizeof sum);
        ebsp_read(pid, 0x6000, &c, 1);
        printf("core %d: the sum at 0x6008 is %d, the character at 0x6000 '%c'\n", pid, sum, c);
    }
    bsp_end();
    return 0;
}
