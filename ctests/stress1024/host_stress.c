/* 1024 cores in all-to-all bsp_put, bsp_send, bsp_hpput and bsp_get over
 * five rounds (16 supersteps) (see e_stress.c); the cores verify every byte and the
 * host adds up what they verified. */
#include <host_bsp.h>
#include <stdio.h>

struct tally {
    int put_bytes, messages, payload_bytes, hpput_bytes, get_bytes;
};

int main(int argc, char **argv)
{
    if (!bsp_init("e_stress.elf", argc, argv) || !bsp_begin(bsp_nprocs()))
        return 1;
    int tagsize = 2 * sizeof(int);
    ebsp_set_tagsize(&tagsize);
    int ok = ebsp_spmd();
    long long put = 0, messages = 0, payload = 0, hpput = 0, get = 0;
    int reports = 0;
    for (;;) {
        int status, tag[2];
        struct tally t;
        ebsp_get_tag(&status, tag);
        if (status < 0)
            break;
        if (status != (int)sizeof t) {
            printf("host: core %d sent %d bytes, want %d\n", tag[0], status, (int)sizeof t);
            return 1;
        }
        ebsp_move(&t, sizeof t);
        put += t.put_bytes;
        messages += t.messages;
        payload += t.payload_bytes;
        hpput += t.hpput_bytes;
        get += t.get_bytes;
        reports++;
    }
    printf("stress: %d cores, spmd %d, %d reports\n", bsp_nprocs(), ok, reports);
    printf("stress: verified %lld put bytes, %lld messages with %lld payload bytes, %lld hpput bytes, %lld get bytes\n",
           put, messages, payload, hpput, get);
    int cores = bsp_nprocs(); /* 0 after bsp_end, as on the board */
    bsp_end();
    return ok && reports == cores ? 0 : 1;
}
