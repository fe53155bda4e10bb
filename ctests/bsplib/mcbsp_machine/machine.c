/*
 * MulticoreBSP's machine-control extensions, called as its own test
 * programs call them (set the maximum threads, MANUAL affinity and a
 * pinning before the section): the program builds and runs unmodified.
 * Here only the maximum number of threads acts, as a cap on the cores.
 */
#include <bsp.h>
#include <stdio.h>
#include <stdlib.h>

static void spmd(void)
{
    bsp_begin(bsp_nprocs());
    printf("$%02u: core %u of %u\n", bsp_pid(), bsp_pid(), bsp_nprocs());
    bsp_end();
}

static void show(const char *when)
{
    size_t *pin = mcbsp_get_pinning(), *reserved = mcbsp_get_reserved_cores();
    printf("%s: max threads %zu, affinity %d, cores %zu, threads/core %zu (%zu unused), numbering %d, "
           "pinning %s, reserved %zu, bsp_nprocs %u\n",
           when, mcbsp_get_maximum_threads(), (int)mcbsp_get_affinity_mode(), mcbsp_get_available_cores(),
           mcbsp_get_threads_per_core(), mcbsp_get_unused_threads_per_core(), (int)mcbsp_get_thread_numbering(),
           pin ? "set" : "none", mcbsp_get_reserved_cores_number(), bsp_nprocs());
    if (pin)
        printf("pinning %zu %zu %zu\n", pin[0], pin[1], pin[2]);
    if (reserved)
        printf("reserved %zu\n", reserved[0]);
    free(pin);
    free(reserved);
}

int main(int argc, char **argv)
{
    show("defaults");
    bsp_init(spmd, argc, argv);
    mcbsp_set_maximum_threads(7);
    mcbsp_set_affinity_mode(MANUAL);
    size_t *manual = malloc(3 * sizeof *manual);
    for (size_t i = 0; i < 3; i++)
        manual[i] = 2 - i;
    mcbsp_set_pinning(manual, 3); /* and 3 threads */
    free(manual);                 /* the library kept a copy */
    mcbsp_set_available_cores(4);
    mcbsp_set_threads_per_core(2);
    mcbsp_set_unused_threads_per_core(1);
    mcbsp_set_thread_numbering(WRAPPED);
    size_t reserved = 1;
    mcbsp_set_reserved_cores(&reserved, 1);
    show("set");
    spmd();
    mcbsp_set_pinning(NULL, 0); /* no pinning, no maximum */
    mcbsp_set_maximum_threads(2);
    mcbsp_set_affinity_mode(COMPACT);
    mcbsp_set_reserved_cores(NULL, 0);
    show("again");
    spmd();
    mcbsp_set_maximum_threads(0);
    mcbsp_set_affinity_mode(SCATTER);
    show("no cap");
    return 0;
}
