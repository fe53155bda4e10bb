/* ebsp_write/ebsp_read round trips: offsets in local memory before, during
 * (sync callback) and after a run; pointers handed up by the cores; and
 * every refused address. */
#include <host_bsp.h>
#include <stdio.h>

enum { N = 2 };

static void on_sync(void)
{
    for (int pid = 0; pid < N; pid++) {
        int sum = 0;
        void *handed[3];
        ebsp_read(pid, 0x6000, &sum, sizeof sum);
        ebsp_read(pid, 0x7000, handed, sizeof handed);
        int global = 1000 + pid, ext[4] = {pid, pid + 1, pid + 2, pid + 3};
        int wrote = ebsp_write(pid, &global, (off_t)(size_t)handed[0], sizeof global) &&
                    ebsp_write(pid, ext, (off_t)(size_t)handed[1], sizeof ext);
        printf("callback: core %d summed %d; writes through its pointers: %d\n", pid, sum, wrote);
        if (pid == 0) {
            int x;
            printf("read core 0's local pointer as core 1: %d\n",
                   ebsp_read(1, (off_t)(size_t)handed[2], &x, sizeof x));
            printf("read 8 bytes at its last 4: %d\n",
                   ebsp_read(0, (off_t)(size_t)handed[2] + 0x7efc, &x, 8));
        }
    }
}

int main(int argc, char **argv)
{
    if (!bsp_init("e_write_read.elf", argc, argv) || !bsp_begin(N))
        return 1;
    for (int pid = 0; pid < N; pid++) {
        int data[16];
        for (int i = 0; i < 16; i++)
            data[i] = 100 * pid + i;
        ebsp_write(pid, data, 0x5000, sizeof data);
    }
    long long tail = 42;
    int back = 0;
    printf("last 8 bytes: write %d", ebsp_write(1, &tail, 0x7ff8, 8));
    printf(", read %d\n", ebsp_read(1, 0x7ff8, &back, 4) && back == 42);
    printf("bad pid: %d\n", ebsp_write(N, &tail, 0, 8));
    printf("past the end: %d\n", ebsp_write(0, &tail, 0x7ffc, 8));
    printf("beyond local memory: %d\n", ebsp_read(0, 0x9000, &back, 4));
    printf("negative: %d\n", ebsp_read(0, -8, &back, 4));
    ebsp_set_sync_callback(on_sync);
    if (!ebsp_spmd())
        return 1;
    int sum = 0;
    ebsp_read(1, 0x6000, &sum, sizeof sum);
    printf("after the run core 1's sum is still there: %d\n", sum);
    bsp_end();
    printf("after bsp_end: %d\n", ebsp_read(0, 0, &sum, 4));
    return 0;
}
