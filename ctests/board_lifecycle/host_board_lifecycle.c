/* Host calls in every wrong order the board reported, and bsp_init followed
 * by bsp_end without bsp_begin (legal and silent). Expected output and
 * stderr are what EBSP 1.0 printed on the Parallella. One run only: the
 * board refused a second ebsp_spmd, libebsp allows it (see lifecycle). */
#include <host_bsp.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    printf("nprocs before init: %d\n", bsp_nprocs());
    printf("end before init: %d\n", bsp_end());
    printf("begin before init: %d\n", bsp_begin(16));
    printf("spmd before init: %d\n", ebsp_spmd());

    printf("init: %d\n", bsp_init("e_board_lifecycle.elf", argc, argv));
    printf("nprocs after init: %d\n", bsp_nprocs());
    printf("init twice: %d\n", bsp_init("e_board_lifecycle.elf", argc, argv));
    printf("spmd before begin: %d\n", ebsp_spmd());
    printf("end without begin: %d\n", bsp_end());
    printf("nprocs after end: %d\n", bsp_nprocs());
    printf("end twice: %d\n", bsp_end());

    printf("init again: %d\n", bsp_init("e_board_lifecycle.elf", argc, argv));
    printf("begin 17: %d\n", bsp_begin(17));
    printf("begin 0: %d\n", bsp_begin(0));
    printf("begin -1: %d\n", bsp_begin(-1));
    printf("begin 4: %d\n", bsp_begin(4));
    printf("begin twice: %d\n", bsp_begin(4));
    printf("init while begun: %d\n", bsp_init("e_board_lifecycle.elf", argc, argv));
    printf("nprocs while begun: %d\n", bsp_nprocs());
    printf("spmd: %d\n", ebsp_spmd());
    printf("begin after spmd: %d\n", bsp_begin(4));
    printf("end: %d\n", bsp_end());
    printf("nprocs after end: %d\n", bsp_nprocs());
    return 0;
}
