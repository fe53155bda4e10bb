/* Registrations at addresses where no memory is: each core registers one
 * (a number below 4096 in the odd cases, else an address with nothing
 * mapped: 0x7f0000001000, or on a 32-bit build a page the core made
 * inaccessible), and core 0 then makes a request of 16 bytes at offset 8
 * of core 1's copy: bsp_put, bsp_get, bsp_hpput, bsp_hpget, bsp_direct_get
 * (cases 1-2, 3-4, ...). The registrations themselves are no error: a
 * variable's name may be any number, only its bytes cannot be used. In
 * cases 11-12 core 0 moves a message of core 1 to that address. */
#include <e_bsp.h>
#include <stdint.h>
#include <sys/mman.h>

static void *wild(int low)
{
    if (low)
        return (void *)0x10;
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
    void *v = wild(c % 2);
    bsp_push_reg(v, 100);
    char buf[16] = {0};
    if (c >= 11 && bsp_pid() == 1)
        bsp_send(0, NULL, buf, sizeof buf);
    bsp_sync();
    if (bsp_pid() == 0) {
        switch ((c - 1) / 2) {
        case 0: bsp_put(1, buf, v, 8, sizeof buf); break;
        case 1: bsp_get(1, v, 8, buf, sizeof buf); break;
        case 2: bsp_hpput(1, buf, v, 8, sizeof buf); break;
        case 3: bsp_hpget(1, v, 8, buf, sizeof buf); break;
        case 4: bsp_direct_get(1, v, 8, buf, sizeof buf); break;
        case 5: bsp_move(v, sizeof buf); break;
        }
    }
    bsp_sync();
    ebsp_message("done");
    bsp_end();
    return 0;
}
