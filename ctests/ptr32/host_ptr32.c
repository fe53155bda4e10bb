/* The host half of ptr32: stream areas kept as unsigned and written
 * through, addresses from the cores received as unsigned and used with
 * ebsp_write and as plain pointers. Built with -m32 (the m32 file). */
#include <host_bsp.h>
#include <stdio.h>

enum { CORES = 4, N = 8, TOKEN = 4 * (int)sizeof(int) };

int main(int argc, char **argv)
{
    if (!bsp_init("e_ptr32.elf", argc, argv) || !bsp_begin(CORES))
        return 1;
    printf("host: sizeof(void *) %u\n", (unsigned)sizeof(void *));
    unsigned areas[CORES];
    for (int s = 0; s < CORES; s++) {
        int data[N];
        for (int i = 0; i < N; i++)
            data[i] = s + i;
        areas[s] = (unsigned)bsp_stream_create(sizeof data, TOKEN, data);
        /* the first token's first int, after its header (two ints) */
        int *first = (int *)(areas[s] + 2 * sizeof(int));
        *first += 1000;
    }
    int tag = sizeof(int);
    ebsp_set_tagsize(&tag);
    if (!ebsp_spmd())
        return 1;
    int packets, bytes;
    ebsp_qsize(&packets, &bytes);
    printf("host: %d messages up\n", packets);
    for (int k = 0; k < packets; k++) {
        int status, pid;
        unsigned up[2];
        ebsp_get_tag(&status, &pid);
        ebsp_move(up, sizeof up);
        int value = 7000 + pid;
        int wrote = ebsp_write(pid, &value, (off_t)up[0], sizeof value);
        int *ext = (int *)up[1];
        printf("host: core %d: ebsp_write through its unsigned %d, its external block ends with %d\n", pid,
               wrote, ext[N - 1]);
    }
    if (!ebsp_spmd())
        return 1;
    bsp_end();
    return 0;
}
