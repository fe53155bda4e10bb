/* Settings that cannot be used are reported at each run, as a bad
 * EBSP_CHECKS is, naming the variable, its value and what is used instead;
 * the run goes on with the defaults. */
#include <host_bsp.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (!bsp_init("e_settings.elf", argc, argv) || !bsp_begin(2))
        return 1;
    printf("run: %d\n", ebsp_spmd());
    bsp_end();
    return 0;
}
