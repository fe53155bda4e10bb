/* Deprecated up streams are raw: the host reads the chunks the cores sent
 * up as one flat array, with no headers. */
#include <host_bsp.h>
#include <stdio.h>

enum { CORES = 2, CHUNKS = 5, CHUNK_INTS = 4 };

int main(int argc, char **argv)
{
    if (!bsp_init("e_legacy_up.elf", argc, argv) || !bsp_begin(CORES))
        return 1;
    int *up[CORES];
    for (int s = 0; s < CORES; s++)
        up[s] = ebsp_create_up_stream(s, CHUNKS * CHUNK_INTS * sizeof(int), CHUNK_INTS * sizeof(int));
    if (!ebsp_spmd())
        return 1;
    for (int s = 0; s < CORES; s++) {
        printf("core %d:", s);
        for (int i = 0; i < CHUNKS * CHUNK_INTS; i++)
            printf(" %d", up[s][i]);
        printf("\n");
    }
    bsp_end();
    return 0;
}
