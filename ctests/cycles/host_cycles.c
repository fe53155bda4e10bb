/* 1000 init/begin/spmd/end cycles in one process: memory stays flat and no
 * thread, file descriptor or kernel instance is leaked.
 * CYCLES_VERBOSE=1 prints the measurements. */
#define _GNU_SOURCE
#include <dirent.h>
#include <host_bsp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static long status_field(const char *name)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long v = -1;
    size_t len = strlen(name);
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, name, len) == 0)
            v = strtol(line + len, NULL, 10);
    if (f)
        fclose(f);
    return v;
}

static int count_entries(const char *dir, const char *prefix)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (e->d_name[0] != '.' && strncmp(e->d_name, prefix, strlen(prefix)) == 0)
            n++;
    if (d)
        closedir(d);
    return n;
}

static int count_loaded_kernels(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512];
    int n = 0;
    while (f && fgets(line, sizeof line, f))
        if (strstr(line, "ebsp-kernel-") && strstr(line, "r-xp"))
            n++;
    if (f)
        fclose(f);
    return n;
}

static int cycle(int argc, char **argv)
{
    return bsp_init("e_cycles.elf", argc, argv) && bsp_begin(16) && ebsp_spmd() && bsp_end();
}

int main(int argc, char **argv)
{
    int verbose = getenv("CYCLES_VERBOSE") != NULL;
    for (int i = 0; i < 50; i++) /* warm-up: allocator pools, Go heap, thread caches */
        if (!cycle(argc, argv))
            return 1;
    long rss0 = status_field("VmRSS:"), threads0 = status_field("Threads:"), rss_half = 0, threads_half = 0;
    int fds0 = count_entries("/proc/self/fd", "");
    for (int i = 1; i <= 1000; i++) {
        if (!cycle(argc, argv)) {
            printf("cycle %d failed\n", i);
            return 1;
        }
        if (i == 500) {
            rss_half = status_field("VmRSS:");
            threads_half = status_field("Threads:");
        }
    }
    long rss1 = status_field("VmRSS:"), threads1 = status_field("Threads:");
    int fds1 = count_entries("/proc/self/fd", "");
    if (verbose)
        fprintf(stderr, "RSS after warm-up %ld KiB, after 500 cycles %ld KiB, after 1000 cycles %ld KiB; "
                        "threads %ld -> %ld (Go runtime threads included), fds %d -> %d\n",
                rss0, rss_half, rss1, threads0, threads1, fds0, fds1);
    printf("1000 cycles done\n");
    /* flat: the second 500 cycles add (almost) nothing to what the first 500 settled at */
    printf("RSS flat over the last 500 cycles (< 4 MiB growth): %s\n", rss1 - rss_half < 4096 ? "yes" : "NO");
    /* one leaked core thread per cycle would add 500; the Go runtime's threads
     * come and go within a few */
    printf("threads flat over the last 500 cycles (< 64 more): %s\n", threads1 - threads_half < 64 ? "yes" : "NO");
    printf("fds leaked: %d\n", fds1 - fds0);
    printf("kernel instances still mapped: %d\n", count_loaded_kernels());
    char mine[64];
    snprintf(mine, sizeof mine, "ebsp-kernel-%ld-", (long)getpid());
    printf("kernel copies left on disk: %d\n", count_entries("/dev/shm", mine));
    return 0;
}
