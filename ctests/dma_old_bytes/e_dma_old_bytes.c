/* A destination holds its old bytes until ebsp_dma_wait, every time: each
 * round pushes three transfers (external -> local, local -> external,
 * local -> the next core's memory) with fresh source bytes, reads every
 * destination before its wait (old bytes) and after it (new bytes). Odd
 * rounds wait only for the last transfer, which completes the chain before
 * it. Then: a second push on a handle still in flight, a zero-byte push
 * (leaves the handle as it was, as in EBSP), and a transfer never waited
 * for, which has landed when the next core looks after a bsp_sync. */
#include <e_bsp.h>
#include <string.h>

enum { ROUNDS = 1000, N = 96 };

static unsigned char incoming[N]; /* written by the previous core's DMA */
static unsigned char landing[N];  /* written without a wait, before a sync */

static void fill(unsigned char *p, int round, int which)
{
    for (int i = 0; i < N; i++)
        p[i] = (unsigned char)(round * 7 + which * 31 + i + bsp_pid());
}

/* The bytes fill() wrote for this round, or the previous round's. */
static int holds(const volatile unsigned char *p, int round, int which)
{
    unsigned char want[N];
    fill(want, round, which);
    for (int i = 0; i < N; i++)
        if (p[i] != want[i])
            return 0;
    return 1;
}

int main(void)
{
    bsp_begin();
    int s = bsp_pid(), p = bsp_nprocs();
    bsp_push_reg(incoming, N);
    bsp_sync();
    unsigned char *next = ebsp_get_direct_address((s + 1) % p, incoming);
    unsigned char *ext_src = ebsp_ext_malloc(N), *ext_dst = ebsp_ext_malloc(N);
    unsigned char *loc_src = ebsp_malloc(N), *loc_dst = ebsp_malloc(N), *loc_src2 = ebsp_malloc(N);
    unsigned char *dst[3] = {loc_dst, ext_dst, next};
    /* round -1: the destinations' "old bytes" of round 0 */
    fill(loc_dst, -1, 0);
    fill(ext_dst, -1, 1);
    fill(next, -1, 2);
    int old_seen = 0, new_seen = 0;
    for (int r = 0; r < ROUNDS; r++) {
        ebsp_dma_handle h[3];
        fill(ext_src, r, 0);
        fill(loc_src, r, 1);
        fill(loc_src2, r, 2);
        ebsp_dma_push(&h[0], loc_dst, ext_src, N);
        ebsp_dma_push(&h[1], ext_dst, loc_src, N);
        ebsp_dma_push(&h[2], next, loc_src2, N);
        if (r % 2 == 0) {
            for (int k = 0; k < 3; k++) {
                old_seen += holds(dst[k], r - 1, k);
                ebsp_dma_wait(&h[k]);
                new_seen += holds(dst[k], r, k);
            }
        } else {
            for (int k = 0; k < 3; k++)
                old_seen += holds(dst[k], r - 1, k);
            ebsp_dma_wait(&h[2]); /* the chain before it is complete too */
            for (int k = 0; k < 3; k++)
                new_seen += holds(dst[k], r, k);
        }
    }
    ebsp_message("%d rounds: old bytes before the wait %d/%d, new bytes after it %d/%d", ROUNDS,
                 old_seen, 3 * ROUNDS, new_seen, 3 * ROUNDS);

    /* a second transfer pushed on a handle whose first is still in flight */
    ebsp_dma_handle h;
    fill(loc_src, 2000, 1);
    fill(loc_src2, 2000, 2);
    ebsp_dma_push(&h, ext_dst, loc_src, N);
    ebsp_dma_push(&h, loc_dst, loc_src2, N);
    int before = holds(ext_dst, ROUNDS - 1, 1) && holds(loc_dst, ROUNDS - 1, 0);
    ebsp_dma_wait(&h);
    ebsp_message("two transfers on one handle: old before the wait %s, both done after it %s",
                 before ? "yes" : "no", holds(ext_dst, 2000, 1) && holds(loc_dst, 2000, 2) ? "yes" : "no");

    /* a zero-byte push leaves the handle describing the transfer before */
    fill(ext_src, 3000, 0);
    ebsp_dma_push(&h, loc_dst, ext_src, N);
    ebsp_dma_push(&h, ext_dst, loc_src, 0);
    before = holds(loc_dst, 2000, 2);
    ebsp_dma_wait(&h);
    ebsp_message("zero-byte push: the handle still waits for the transfer before it: %s",
                 before && holds(loc_dst, 3000, 0) ? "yes" : "no");

    /* never waited for: complete when the core enters bsp_sync */
    bsp_push_reg(landing, N);
    bsp_sync();
    unsigned char *their_landing = ebsp_get_direct_address((s + 1) % p, landing);
    fill(loc_src, 4000, 5);
    ebsp_dma_handle lost;
    ebsp_dma_push(&lost, their_landing, loc_src, N);
    bsp_sync();
    unsigned char want[N];
    for (int i = 0; i < N; i++)
        want[i] = (unsigned char)(4000 * 7 + 5 * 31 + i + (s + p - 1) % p);
    ebsp_message("a transfer not waited for has landed after the pusher's bsp_sync: %s",
                 memcmp(landing, want, N) == 0 ? "yes" : "no");
    bsp_end();
    return 0;
}
