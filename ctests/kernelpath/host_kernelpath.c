/* EBSP_KERNEL_PATH is searched after the executable's and current directory,
 * and an EBSP-style ".srec" name finds the ".elf" built for the emulator. */
#define _GNU_SOURCE
#include <host_bsp.h>
#include <stdio.h>
#include <sys/stat.h>

int main(int argc, char **argv)
{
    mkdir("kernels", 0755);
    if (rename("e_moved.elf", "kernels/e_moved.elf") != 0)
        return 1;
    if (!bsp_init("e_moved.srec", argc, argv) || !bsp_begin(2))
        return 1;
    printf("spmd: %d\n", ebsp_spmd());
    bsp_end();
    return 0;
}
