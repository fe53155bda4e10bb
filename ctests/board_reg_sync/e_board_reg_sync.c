/* EBSP 1.0 registrations (board level) racing with a core that is still
 * leaving the previous bsp_sync. Cores pair up (2k, 2k+1). Superstep 0:
 * both push `var`, then sync. Superstep 1: both push `text` (slot 1); the
 * odd core then writes into the even core's var, the even core at once
 * reaches into the odd core's slot 1 -- which the odd core fills only
 * once it has left the sync. On the board the odd core pushed long
 * before the even core's request arrived; here the request waits for the
 * push. Each run takes another call for the even core's request: the hp
 * calls and ebsp_get_direct_address wait at the call, bsp_put and bsp_get
 * when the engine parses them at the even core's next bsp_sync, where the
 * odd core may still be leaving the previous one. */
#include <e_bsp.h>
#include <string.h>

static int run;
int var;
char text[32];
char copy[32];

int main(void)
{
    bsp_begin();
    int s = bsp_pid(), partner = s ^ 1;
    run++;
    var = 0;
    memset(copy, 0, sizeof copy);
    strcpy(text, s & 1 ? "odd core's own text" : "even core's text");

    bsp_push_reg(&var, sizeof var);
    bsp_sync();

    bsp_push_reg(text, sizeof text);
    if (s & 1) {
        int one = 1;
        bsp_hpput(partner, &one, &var, 0, sizeof one);
    } else {
        static const char replacement[] = "Replacement string.!";
        switch (run) {
        case 1:
            bsp_hpput(partner, replacement, text, 0, sizeof replacement);
            break;
        case 2:
            bsp_put(partner, replacement, text, 0, sizeof replacement);
            break;
        case 3:
            bsp_hpget(partner, text, 0, copy, sizeof copy);
            break;
        case 4:
            bsp_get(partner, text, 0, copy, sizeof copy);
            break;
        case 5:
            bsp_direct_get(partner, text, 0, copy, sizeof copy);
            break;
        case 6: {
            char *there = ebsp_get_direct_address(partner, text);
            memcpy(copy, there, sizeof copy);
            break;
        }
        }
    }
    bsp_sync();

    /* cores 0 and 1 print what they have, the other pairs only what is wrong */
    int ok = s & 1 ? strcmp(text, run <= 2 ? "Replacement string.!" : "odd core's own text") == 0
                   : var == 1 && (run <= 2 || strcmp(copy, "odd core's own text") == 0);
    if (s < 2 || !ok) {
        if (s & 1)
            ebsp_message("run %d: %s", run, text);
        else if (run <= 2)
            ebsp_message("run %d: %d", run, var);
        else
            ebsp_message("run %d: %d, %s", run, var, copy);
    }
    bsp_pop_reg(text);
    bsp_pop_reg(&var);
    bsp_end();
    return 0;
}
