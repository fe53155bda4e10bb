/* Numbers below 4096 handed to the core calls as pointers (the case comes
 * from the host): none may reach the Go engine as a pointer (capi/shim.h).
 * A variable's address reaches it as an offset into a page that no access
 * may touch, and the board's line names the number; memory to read is
 * refused with the line the engine prints for memory it cannot read. */
#include <e_bsp.h>

static int var[4];
#define SMALL ((void *)0x10)

int main(void)
{
    bsp_begin();
    int c = 0;
    bsp_move(&c, sizeof c);
    bsp_push_reg(var, sizeof var);
    bsp_sync();
    int x[4] = {1, 2, 3, 4};
    ebsp_stream s;
    if (c == 1) /* registers the number: every core, as strict wants */
        bsp_push_reg(SMALL, 8);
    if (c >= 8) /* messages to the host: after the last sync */
        bsp_sync();
    if (bsp_pid() == 0) {
        switch (c) {
        case 2: bsp_pop_reg(SMALL); break;
        case 3: bsp_put(1, x, SMALL, 0, 4); break;
        case 4: bsp_hpput(1, x, SMALL, 0, 4); break;
        case 5: bsp_get(1, SMALL, 0, x, 4); break;
        case 6: ebsp_get_direct_address(1, SMALL); break;
        case 7: ebsp_free(SMALL); break;
        case 8: ebsp_send_up(NULL, SMALL, 4); break;
        case 9: ebsp_send_up(SMALL, x, 4); break; /* tag size 0: not read */
        case 10:
            if (bsp_stream_open(&s, 0)) {
                ebsp_message("move_up returned %d", bsp_stream_move_up(&s, SMALL, 8, 0));
                bsp_stream_close(&s);
            }
            break;
        }
    }
    if (c < 8)
        bsp_sync();
    bsp_end();
    return 0;
}
