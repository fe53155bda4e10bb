/* Core 1 ends the program in case c: abort() (1), a call to a fixed local
 * address, where there is no code (2), a call to an address where nothing
 * is mapped (3), a call into data (4). */
#include <e_bsp.h>
#include <stdint.h>
#include <stdlib.h>

static int data_word = 1;

int main(void)
{
    bsp_begin();
    int c = 0;
    bsp_move(&c, sizeof c);
    bsp_sync();
    if (bsp_pid() == 1) {
        ebsp_message("case %d", c);
        if (c == 1)
            abort();
        if (c == 2)
            ((void (*)(void))(uintptr_t)0x5000)();
        if (c == 3)
            ((void (*)(void))(uintptr_t)0x7f0000001000)();
        if (c == 4)
            ((void (*)(void))(void *)&data_word)();
    }
    bsp_sync();
    bsp_end();
    return 0;
}
