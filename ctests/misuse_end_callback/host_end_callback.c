/* ebsp_spmd and bsp_end called from the end callback (which runs inside
 * ebsp_spmd, after the cores stopped) are refused as they are from the
 * sync callback: a run is still in progress. The run and the next ones
 * are unharmed. The depth counter keeps a library that accepts the call
 * from recursing for ever. */
#include <host_bsp.h>
#include <stdio.h>

static int depth;

static void on_end(void)
{
    if (++depth > 2)
        return;
    int spmd = ebsp_spmd();
    int end = bsp_end();
    printf("end callback: ebsp_spmd %d, bsp_end %d\n", spmd, end);
    depth--;
}

int main(int argc, char **argv)
{
    if (!bsp_init("e_end_callback.elf", argc, argv) || !bsp_begin(2))
        return 1;
    ebsp_set_end_callback(on_end);
    printf("run 1: %d\n", ebsp_spmd());
    printf("run 2: %d\n", ebsp_spmd());
    ebsp_set_end_callback(NULL);
    printf("end: %d\n", bsp_end());
    return 0;
}
