/* Stress: every core talks to every core over several rounds and checks
 * every byte it receives. One round is three supersteps:
 *   1. all-to-all bsp_put into `inbox` and all-to-all bsp_send with
 *      payloads of varying size;
 *   2. all-to-all bsp_hpput into `direct`;
 *   3. all-to-all bsp_get of a block of `direct` from every core.
 * A wrong byte stops the run with bsp_abort naming the core, the source
 * and the offset. At the end each core sends its tallies to the host. */
#include <e_bsp.h>
#include <string.h>

enum { MAXP = 1024, WORDS = 4, MAXPAYLOAD = 9, ROUNDS = 5 };

typedef int block_t[WORDS];

block_t inbox[MAXP];  /* inbox[src]: what core src put here */
block_t direct[MAXP]; /* direct[src]: what core src hpput here */
block_t pulled[MAXP]; /* pulled[src]: what this core got from core src */

/* Totals for the host, one message per core. */
struct tally {
    int put_bytes, messages, payload_bytes, hpput_bytes, get_bytes;
};

static int value(int src, int dst, int round, int i)
{
    return (src * 7919 + dst * 104729 + round * 1299709 + i * 15485863) ^ 0x5a5a5a5a;
}

static int payload_words(int src, int dst, int round)
{
    return (src * 7 + dst * 13 + round * 5) % MAXPAYLOAD;
}

static void fill(block_t b, int src, int dst, int round)
{
    for (int i = 0; i < WORDS; i++)
        b[i] = value(src, dst, round, i);
}

/* got is what the call `what` brought from core `from`; it must equal the
 * block core src made for core dst with fill(..., salt). */
static void check_block(const char *what, block_t got, int from, int src, int dst, int salt, int round)
{
    block_t want;
    fill(want, src, dst, salt);
    for (int i = 0; i < WORDS; i++)
        if (got[i] != want[i])
            bsp_abort("stress: core %d, %s from core %d, offset %d (round %d): got %d, want %d",
                      bsp_pid(), what, from, (int)(i * sizeof(int)), round, got[i], want[i]);
}

static void put_and_send(int p, int s, int round)
{
    for (int dst = 0; dst < p; dst++) {
        block_t b;
        fill(b, s, dst, round);
        bsp_put(dst, b, inbox, s * (int)sizeof(block_t), sizeof(block_t));
        int tag[2] = {s, value(s, dst, round, -1)};
        int payload[MAXPAYLOAD];
        int n = payload_words(s, dst, round);
        for (int i = 0; i < n; i++)
            payload[i] = value(s, dst, round, WORDS + i);
        bsp_send(dst, tag, payload, n * (int)sizeof(int));
    }
}

/* Messages may arrive in any order: each source must appear exactly once. */
static void check_messages(int p, int s, int round, struct tally *t)
{
    static unsigned char seen[MAXP];
    memset(seen, 0, sizeof seen);
    int packets, bytes, want_bytes = 0;
    for (int src = 0; src < p; src++)
        want_bytes += payload_words(src, s, round) * (int)sizeof(int);
    bsp_qsize(&packets, &bytes);
    if (packets != p || bytes != want_bytes)
        bsp_abort("stress: core %d, round %d: queue holds %d messages of %d bytes, want %d of %d",
                  s, round, packets, bytes, p, want_bytes);
    for (int k = 0; k < p; k++) {
        int status, tag[2], payload[MAXPAYLOAD + 1];
        bsp_get_tag(&status, tag);
        int src = tag[0];
        if (src < 0 || src >= p || seen[src]++)
            bsp_abort("stress: core %d, round %d: message %d has a bad or repeated source %d", s, round, k, src);
        if (tag[1] != value(src, s, round, -1))
            bsp_abort("stress: core %d, tag from core %d, offset 4 (round %d): got %d", s, src, round, tag[1]);
        int n = payload_words(src, s, round);
        if (status != n * (int)sizeof(int))
            bsp_abort("stress: core %d, message from core %d (round %d): %d bytes, want %d",
                      s, src, round, status, n * (int)sizeof(int));
        bsp_move(payload, sizeof payload);
        for (int i = 0; i < n; i++)
            if (payload[i] != value(src, s, round, WORDS + i))
                bsp_abort("stress: core %d, payload from core %d, offset %d (round %d): got %d, want %d",
                          s, src, (int)(i * sizeof(int)), round, payload[i], value(src, s, round, WORDS + i));
        t->messages++;
        t->payload_bytes += status;
    }
    int status;
    bsp_get_tag(&status, NULL);
    if (status != -1)
        bsp_abort("stress: core %d, round %d: queue not empty after %d messages", s, round, p);
}

int main(void)
{
    bsp_begin();
    int p = bsp_nprocs(), s = bsp_pid();
    struct tally t = {0, 0, 0, 0, 0};
    if (p > MAXP)
        bsp_abort("stress: at most %d cores", MAXP);
    bsp_push_reg(inbox, sizeof inbox);
    bsp_push_reg(direct, sizeof direct);
    bsp_sync();
    for (int round = 0; round < ROUNDS; round++) {
        put_and_send(p, s, round);
        bsp_sync();
        for (int src = 0; src < p; src++)
            check_block("put", inbox[src], src, src, s, round, round);
        t.put_bytes += p * (int)sizeof(block_t);
        check_messages(p, s, round, &t);

        for (int dst = 0; dst < p; dst++) {
            block_t b;
            fill(b, s, dst, round + ROUNDS);
            bsp_hpput(dst, b, direct, s * (int)sizeof(block_t), sizeof(block_t));
        }
        bsp_sync();
        for (int src = 0; src < p; src++)
            check_block("hpput", direct[src], src, src, s, round + ROUNDS, round);
        t.hpput_bytes += p * (int)sizeof(block_t);

        /* from core src, the block core (s+src)%p hpput there */
        for (int src = 0; src < p; src++)
            bsp_get(src, direct, ((s + src) % p) * (int)sizeof(block_t), pulled[src], sizeof(block_t));
        bsp_sync();
        for (int src = 0; src < p; src++)
            check_block("get", pulled[src], src, (s + src) % p, src, round + ROUNDS, round);
        t.get_bytes += p * (int)sizeof(block_t);
    }
    int tag[2] = {s, 0};
    ebsp_send_up(tag, &t, sizeof t);
    bsp_end();
    return 0;
}
