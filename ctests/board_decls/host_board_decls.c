/* Code written against EBSP's own declarations compiles unchanged: the
 * functions EBSP declares with "()" accept a call with arguments (ignored),
 * callbacks have the type void (*)(), host_bsp.h brings <e-hal.h> (E_OK)
 * and off_t, and ebsp_create_down_stream returns nothing. */
#include <host_bsp.h>
#include <stdio.h>

static int end_calls;
static void on_end(void) { end_calls++; }

int main(int argc, char **argv)
{
    int (*spmd)() = ebsp_spmd;
    void (*set_end)(void (*)()) = ebsp_set_end_callback;
    void (*create_down)(const void *, int, int, int) = ebsp_create_down_stream;

    if (!bsp_init("e_board_decls.elf", argc, argv) || !bsp_begin(bsp_nprocs(0) / 8))
        return 1;
    int tag = 4;
    ebsp_set_tagsize(&tag);
    int data[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    create_down(data, 0, sizeof data, 16);
    off_t where = 0x100;
    ebsp_write(1, data, where, sizeof data);
    set_end(on_end);
    int ok = spmd(0);
    printf("spmd %d, end callbacks %d, tagsize %d, E_OK %d\n", ok, end_calls, ebsp_get_tagsize(0), E_OK);
    return bsp_end(1) == 1 ? 0 : 1;
}
