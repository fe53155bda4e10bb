/* Kernel files that cannot run get a clear error naming the file; bsp_init returns 0. */
#include <host_bsp.h>
#include <stdio.h>

static void write_file(const char *name, const unsigned char *data, size_t n)
{
    FILE *f = fopen(name, "wb");
    fwrite(data, 1, n, f);
    fclose(f);
}

int main(int argc, char **argv)
{
    static const unsigned char srec[] = "S00F000068656C6C6F20202020200000\nS9030000FC\n";
    unsigned char elf[64] = {0x7f, 'E', 'L', 'F', 1, 1, 1};
    elf[16] = 2;                    /* ET_EXEC */
    elf[18] = 0x23; elf[19] = 0x12; /* EM 0x1223: Epiphany */
    write_file("e_chip.srec", srec, sizeof srec - 1);
    write_file("e_chip.elf", elf, sizeof elf);
    write_file("e_text.elf", (const unsigned char *)"hello", 5);
    write_file("e_trunc.elf", elf, 4); /* an ELF file cut after its magic number */

    printf("missing: %d\n", bsp_init("e_missing.elf", argc, argv));
    printf("srec: %d\n", bsp_init("e_chip.srec", argc, argv));
    printf("epiphany elf: %d\n", bsp_init("e_chip.elf", argc, argv));
    printf("text: %d\n", bsp_init("e_text.elf", argc, argv));
    printf("truncated: %d\n", bsp_init("e_trunc.elf", argc, argv));
    printf("executable: %d\n", bsp_init(argv[0], argc, argv));
    printf("begin after failed init: %d\n", bsp_begin(4));
    return 0;
}
