/* Messages from the host until the first sync, messages to the host in
 * the last superstep. */
#include <e_bsp.h>
#include <string.h>

int main(void)
{
    bsp_begin();
    int s = bsp_pid();
    int n, acc, status;
    bsp_qsize(&n, &acc);
    int tag = -1;
    bsp_get_tag(&status, &tag);
    int sum = 0;
    while (status >= 0) {
        int v = 0;
        bsp_move(&v, sizeof v);
        sum += v;
        bsp_get_tag(&status, &tag);
    }
    ebsp_message("down: %d msgs %d bytes, last tag %d, sum %d, tagsize %d", n, acc, tag, sum, ebsp_get_tagsize());
    int t = 2;
    bsp_set_tagsize(&t);
    bsp_sync();
    bsp_qsize(&n, &acc);
    if (n)
        ebsp_message("down messages still queued after the first sync");
    short up_tag = (short)(s * 10);
    char text[32];
    for (int i = 0; i <= s % 3; i++) {
        int len = (int)strlen(strcpy(text, "result from core")) + 1;
        text[len - 1] = (char)('0' + s % 10);
        up_tag = (short)(s * 10 + i);
        ebsp_send_up(&up_tag, text, len);
    }
    bsp_end();
    return 0;
}
