/* The host's view of bsp_stream_create streams: int headers (size of the
 * token before, size of the token after) around each token, a terminating
 * header; tokens moved up by cores are rounded up to a multiple of 8. The
 * host walks the chains as EBSP programs do. */
#include <host_bsp.h>
#include <stdio.h>

/* prints the chain from its first header: (prev,next) and the first byte
 * of each token (the bytes a token was padded with are not printed: on
 * the board they were whatever followed the data in the core's memory) */
static void walk(const char *name, const int *h)
{
    printf("%s:", name);
    for (;;) {
        printf(" (%d,%d)", h[0], h[1]);
        if (h[1] == 0)
            break;
        printf(" %d", ((const unsigned char *)(h + 2))[0]);
        h = (const int *)((const char *)(h + 2) + h[1]);
    }
    printf("\n");
}

int main(int argc, char **argv)
{
    if (!bsp_init("e_layout.elf", argc, argv) || !bsp_begin(2))
        return 1;
    int data[10];
    for (int i = 0; i < 10; i++)
        data[i] = 10 * i;
    int *s0 = bsp_stream_create(sizeof data, 16, data); /* 16, 16, 8 */
    int *s1 = bsp_stream_create(0, 24, data);           /* no token at all */
    int *s2 = bsp_stream_create(100, 16, NULL);         /* empty, 164 bytes */
    walk("stream 0", s0);
    walk("stream 1", s1);
    walk("stream 2", s2);
    if (!ebsp_spmd())
        return 1;
    walk("stream 0", s0);
    walk("stream 2", s2);
    bsp_end();
    return 0;
}
