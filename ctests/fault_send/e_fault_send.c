/* Messages and DRMA requests handed memory the engine cannot read or
 * write (the case comes from the host): each is a BSP ERROR naming the
 * call and the argument, and the run stops. */
#include <e_bsp.h>
#include <stdint.h>
#include <sys/mman.h>

static char big[1 << 20];

int main(void)
{
    bsp_begin();
    int c = 0;
    bsp_move(&c, sizeof c);
    bsp_push_reg(big, sizeof big);
    bsp_sync();
    int x[4] = {1, 2, 3, 4};
    /* no access, and kept mapped: no other mapping takes its place */
    char *noaccess = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (bsp_pid() == 1) {
        switch (c) {
        case 1: bsp_send(0, NULL, x, 512 << 20); break;
        case 2: bsp_send(0, NULL, noaccess, 1 << 20); break;
        case 3: bsp_put(0, noaccess, big, 0, 1 << 20); break;
        case 4: bsp_get(0, big, 0, noaccess, 1 << 20); break;
        case 5: ebsp_send_up(NULL, x, 512 << 20); break;
        case 6: bsp_send(0, NULL, NULL, 16); break;
        case 7: bsp_put(0, NULL, big, 0, 8); break;
        case 8: bsp_get(0, big, 0, NULL, 8); break;
        case 9: bsp_hpput(0, NULL, big, 0, 8); break;
        case 10: bsp_hpget(0, big, 0, NULL, 8); break;
        default: bsp_send(0, NULL, x, sizeof x); break;
        }
    }
    bsp_sync();
    munmap(noaccess, 4096);
    bsp_end();
    return 0;
}
