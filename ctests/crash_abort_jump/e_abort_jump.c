/* Core 1 ends the program in case c: abort() (1), a call to a fixed local
 * address, where there is no code (2), a call to an address where nothing
 * is (3), a call into data (4). */
#include <e_bsp.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

static int data_word = 1;

/* An address with nothing there: 0x7f0000001000, or on a 32-bit build a
 * page the core made inaccessible. */
static void *nothing_there(void)
{
#if UINTPTR_MAX > 0xffffffffu
    return (void *)(uintptr_t)0x7f0000001000ull;
#else
    void *p = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
#endif
}

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
            ((void (*)(void))nothing_there())();
        if (c == 4)
            ((void (*)(void))(void *)&data_word)();
    }
    bsp_sync();
    bsp_end();
    return 0;
}
