/* A sync callback that ends its thread with pthread_exit: the cores would
 * wait for the host for ever; the library says so and ends the program. */
#include <host_bsp.h>
#include <pthread.h>
#include <stdio.h>

static void end_thread(void)
{
    pthread_exit(NULL);
}

int main(int argc, char **argv)
{
    if (!bsp_init("e_host_exit.elf", argc, argv) || !bsp_begin(2))
        return 2;
    ebsp_set_sync_callback(end_thread);
    printf("starting\n");
    ebsp_spmd();
    printf("not reached\n");
    return 0;
}
