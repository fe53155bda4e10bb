#include <host_bsp.h>
#include <stdio.h>
#include <string.h>

enum { CORES = 6 };

static void collect(void)
{
    int n, acc;
    ebsp_qsize(&n, &acc);
    printf("host: %d messages up, %d bytes, tag size %d\n", n, acc, ebsp_get_tagsize());
    for (int i = 0;; i++) {
        int status;
        short tag = 0;
        ebsp_get_tag(&status, &tag);
        if (status < 0)
            break;
        if (i % 2) {
            char buf[8]; /* truncates */
            ebsp_move(buf, (int)sizeof buf - 1);
            buf[7] = 0;
            printf("host: tag %d moved \"%s\" of %d\n", tag, buf, status);
        } else {
            void *tp, *pp;
            int size = ebsp_hpmove(&tp, &pp);
            short t2;
            memcpy(&t2, tp, sizeof t2);
            printf("host: tag %d hpmoved \"%.*s\"\n", t2, size, (char *)pp);
        }
    }
    void *tp = NULL;
    printf("host: empty queue hpmove %d\n", ebsp_hpmove(&tp, &tp));
}

int main(int argc, char **argv)
{
    if (!bsp_init("e_host.elf", argc, argv) || !bsp_begin(CORES))
        return 1;
    printf("host: tag size before %d\n", ebsp_get_tagsize());
    int t = 4;
    ebsp_set_tagsize(&t);
    printf("host: old tag size %d, now %d\n", t, ebsp_get_tagsize());
    for (int pid = 0; pid < CORES; pid++)
        for (int k = 0; k < pid; k++) {
            int tag = 1000 + pid * 10 + k, v = pid * k;
            ebsp_send_down(pid, &tag, &v, sizeof v);
        }
    int v = 1;
    ebsp_send_down(CORES, &t, &v, sizeof v); /* no such core */
    int ok = ebsp_spmd();
    collect();
    /* a second run gets no down messages and starts at the host's tag size */
    int ok2 = ebsp_spmd();
    collect();
    bsp_end();
    printf("host: runs %d %d\n", ok, ok2);
    return ok && ok2 ? 0 : 1;
}
