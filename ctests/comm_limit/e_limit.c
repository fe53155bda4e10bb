/* More messages than EBSP_COMM_LIMIT_MB allows are a clear error; the host
 * chooses the number of 4 KiB messages with a message sent down. */
#include <e_bsp.h>

char payload[4096];

int main(void)
{
    bsp_begin();
    int count = 0, status;
    bsp_get_tag(&status, NULL);
    bsp_move(&count, sizeof count);
    for (int i = 0; i < count; i++)
        bsp_send(0, NULL, payload, sizeof payload);
    bsp_sync();
    int n, acc;
    bsp_qsize(&n, &acc);
    if (bsp_pid() == 0)
        ebsp_message("received %d messages, %d bytes", n, acc);
    bsp_end();
    return 0;
}
