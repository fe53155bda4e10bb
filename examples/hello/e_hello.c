/* Every core says hello; the global counter shows each core has its own copy. */
#include <e_bsp.h>

int greetings; /* one per core, as in each Epiphany core's local memory */

int main(void)
{
    bsp_begin();
    int s = bsp_pid();
    int p = bsp_nprocs();
    greetings += s + 1;
    ebsp_message("Hello World from processor %d / %d (my global: %d)", s, p, greetings);
    bsp_end();
    return 0;
}
