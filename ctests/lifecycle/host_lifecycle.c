/* Repeated init/begin/spmd/end cycles with two kernels, any core count,
 * the same loaded kernel run twice, and host calls in the wrong order (the
 * board's texts on stderr). */
#include <host_bsp.h>
#include <stdio.h>

static int end_calls;
static void on_end(void) { end_calls++; }

int main(int argc, char **argv)
{
    printf("available before init: %d\n", bsp_nprocs());
    printf("spmd before begin: %d\n", ebsp_spmd());
    printf("begin before init: %d\n", bsp_begin(4));
    printf("end before init: %d\n", bsp_end());

    if (!bsp_init("e_count.elf", argc, argv))
        return 1;
    printf("begin 17: %d\n", bsp_begin(17));
    printf("begin 0: %d\n", bsp_begin(0));
    printf("begin 5: %d\n", bsp_begin(5));
    ebsp_set_end_callback(on_end);
    printf("run 1: %d\n", ebsp_spmd());
    printf("run 2 (same instances): %d\n", ebsp_spmd());
    printf("init while begun: %d\n", bsp_init("e_count.elf", argc, argv));
    printf("end: %d\n", bsp_end());
    ebsp_set_end_callback(NULL);

    if (!bsp_init("e_other.elf", argc, argv))
        return 1;
    printf("begin 3: %d\n", bsp_begin(3));
    printf("run 3 (other kernel): %d\n", ebsp_spmd());
    printf("end: %d\n", bsp_end());

    if (!bsp_init("e_count.elf", argc, argv) || !bsp_begin(2))
        return 1;
    printf("run 4 (fresh instances): %d\n", ebsp_spmd());
    bsp_end();
    printf("end callbacks: %d\n", end_calls);
    return 0;
}
