#include <e_bsp.h>

int main(void)
{
    bsp_begin();
    int pid = bsp_pid();
    if (pid == 1) {
        int size = 4;
        bsp_set_tagsize(&size);
    }
    bsp_sync();
    int tag = 7, payload = 100 + pid;
    bsp_send(1 - pid, &tag, &payload, sizeof payload);
    bsp_sync();
    int got_tag = -1, status = 0, got = 0;
    bsp_get_tag(&status, &got_tag);
    bsp_move(&got, sizeof got);
    ebsp_message("tag size %d: status %d, tag %d, payload %d", ebsp_get_tagsize(), status, got_tag, got);
    bsp_end();
    return 0;
}
