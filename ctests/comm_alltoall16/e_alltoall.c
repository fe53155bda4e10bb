/* Ring and all-to-all exchanges with bsp_put, bsp_get and bsp_send over
 * several supersteps; every core verifies every byte it received. */
#include <e_bsp.h>
#include <string.h>

enum { MAXP = 64, WORDS = 4, STEPS = 4 };

int block[MAXP][WORDS]; /* block[src]: what core src put here */
int ring[2];
int pulled[MAXP][WORDS];

static int value(int src, int dst, int step, int i)
{
    return src * 1000003 + dst * 1009 + step * 31 + i;
}

int main(void)
{
    bsp_begin();
    int p = bsp_nprocs(), s = bsp_pid();
    int errors = 0, msgs = 0, bytes = 0;
    bsp_push_reg(block, sizeof block);
    bsp_push_reg(ring, sizeof ring);
    bsp_sync();
    for (int step = 0; step < STEPS; step++) {
        int out[WORDS];
        for (int dst = 0; dst < p; dst++) {
            for (int i = 0; i < WORDS; i++)
                out[i] = value(s, dst, step, i);
            bsp_put(dst, out, block, s * (int)sizeof out, sizeof out);
            /* a message of (s+dst+step)%7 ints to every core */
            int n = (s + dst + step) % 7;
            int payload[8];
            for (int i = 0; i < n; i++)
                payload[i] = value(s, dst, step, i);
            bsp_send(dst, &step, payload, n * (int)sizeof(int));
        }
        int token[2] = {s, step};
        bsp_put((s + 1) % p, token, ring, 0, sizeof token);
        bsp_sync();
        for (int src = 0; src < p; src++)
            for (int i = 0; i < WORDS; i++)
                errors += block[src][i] != value(src, s, step, i);
        errors += ring[0] != (s + p - 1) % p || ring[1] != step;
        /* read the blocks of the next core back with gets: they hold the
         * values it received in this superstep */
        int next = (s + 1) % p;
        for (int src = 0; src < p; src++)
            bsp_get(next, block, src * (int)sizeof block[0], pulled[src], sizeof block[0]);
        int packets, acc;
        bsp_qsize(&packets, &acc);
        errors += packets != p;
        for (int src = 0; src < p; src++) {
            int tag, status, payload[8];
            bsp_get_tag(&status, &tag);
            int n = (src + s + step) % 7;
            errors += tag != step || status != n * (int)sizeof(int);
            bsp_move(payload, sizeof payload);
            for (int i = 0; i < n; i++)
                errors += payload[i] != value(src, s, step, i);
            msgs++;
            bytes += status;
        }
        bsp_sync();
        for (int src = 0; src < p; src++)
            for (int i = 0; i < WORDS; i++)
                errors += pulled[src][i] != value(src, next, step, i);
    }
    ebsp_message("%d messages, %d payload bytes, %d errors", msgs, bytes, errors);
    bsp_end();
    return 0;
}
