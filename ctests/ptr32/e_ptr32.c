/* Parallella code keeps pointers in unsigned and int (both halves were
 * 32-bit): registration, bsp_hpput, bsp_put, bsp_get and DMA through
 * addresses held in integers, local and external memory blocks kept as
 * unsigned, a stream token buffer as unsigned, and addresses handed to the
 * host as unsigned message payloads. Built with -m32 (the m32 file). */
#include <e_bsp.h>

enum { N = 8 };

static int x;          /* the next core hpputs into it */
static int inbox[N];   /* every core bsp_puts its pid at its own index */
static int mailbox;    /* the host writes it between the runs */
static int run;

int main(void)
{
    bsp_begin();
    int s = bsp_pid(), p = bsp_nprocs();
    run++;
    if (run == 2) {
        ebsp_message("run 2: the host wrote %d through the unsigned it got", mailbox);
        bsp_end();
        return 0;
    }
    ebsp_message("sizeof(void *) %u, sizeof(unsigned) %u", (unsigned)sizeof(void *), (unsigned)sizeof(unsigned));

    unsigned addr = (unsigned)&x;
    int inbox_addr = (int)inbox;
    bsp_push_reg((void *)addr, sizeof x);
    bsp_push_reg((void *)inbox_addr, sizeof inbox);
    bsp_sync();

    int v = 100 + s;
    bsp_hpput((s + 1) % p, &v, (void *)addr, 0, sizeof v);
    bsp_put((s + 1) % p, &s, (void *)inbox_addr, s * (int)sizeof(int), sizeof s);
    bsp_sync();
    int got = -1;
    bsp_get((s + p - 1) % p, (void *)addr, 0, &got, sizeof got);
    bsp_sync();
    ebsp_message("x = %d (from core %d), inbox[%d] = %d, got core %d's x = %d", x, (s + p - 1) % p,
                 (s + p - 1) % p, inbox[(s + p - 1) % p], (s + p - 1) % p, got);
    ebsp_message("%x bytes from inbox to inbox[3]", (unsigned)&inbox[3] - (unsigned)inbox);

    /* memory blocks kept as unsigned */
    unsigned local = (unsigned)ebsp_malloc(N * sizeof(int));
    unsigned ext = (unsigned)ebsp_ext_malloc(N * sizeof(int));
    for (int i = 0; i < N; i++)
        ((int *)local)[i] = s * 1000 + i;
    ebsp_dma_handle h;
    ebsp_dma_push(&h, (void *)ext, (void *)local, N * sizeof(int));
    ebsp_dma_wait(&h);
    unsigned remote = (unsigned)ebsp_get_direct_address((s + 1) % p, (void *)inbox_addr);
    bsp_sync(); /* everyone has read its inbox */
    ebsp_dma_push(&h, (void *)remote, (void *)ext, N * sizeof(int));
    ebsp_dma_wait(&h);
    bsp_sync();
    ebsp_message("inbox[%d] by DMA through unsigned addresses: %d", N - 1, inbox[N - 1]);
    ebsp_free((void *)local);

    /* a stream token buffer as unsigned */
    ebsp_stream stream;
    int sum = 0;
    if (bsp_stream_open(&stream, s)) {
        unsigned buf;
        int size;
        while ((size = bsp_stream_move_down(&stream, (void **)&buf, 0)) > 0)
            for (int i = 0; i < size / (int)sizeof(int); i++)
                sum += ((int *)buf)[i];
        bsp_stream_close(&stream);
    }
    ebsp_message("stream %d sums to %d", s, sum);

    /* addresses up to the host as unsigned payloads */
    unsigned up[2] = {(unsigned)&mailbox, ext};
    ebsp_send_up(&s, up, sizeof up);
    bsp_end();
    return 0;
}
