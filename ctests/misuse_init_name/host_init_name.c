/* bsp_init with an empty kernel name, or the name of a directory, says so
 * instead of calling a search directory "not an ELF shared object"; the
 * next bsp_init with a good name works. */
#include <host_bsp.h>
#include <stdio.h>
#include <sys/stat.h>

int main(int argc, char **argv)
{
    mkdir("e_dir.elf", 0755);
    printf("empty: %d\n", bsp_init("", argc, argv));
    printf("directory: %d\n", bsp_init("e_dir.elf", argc, argv));
    printf("good: %d\n", bsp_init("e_init_name.elf", argc, argv));
    bsp_end();
    return 0;
}
