/* The board formats a core's message into 128 bytes: at most 127
 * characters of it are printed. */
#include <e_bsp.h>
#include <string.h>

int main(void)
{
    bsp_begin();
    char long_text[201];
    memset(long_text, 'x', 200);
    long_text[200] = '\0';
    if (bsp_pid() == 0) {
        ebsp_message("%s", long_text);
        ebsp_message("%d:%s", 12345, long_text);
    }
    bsp_end();
    return 0;
}
