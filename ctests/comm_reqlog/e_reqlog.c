/* Requests the shim logs (small bsp_put, bsp_get, bsp_send) mixed with
 * ones it hands to the engine at once (payloads of 4 KiB and more): issue
 * order holds across both, sources may be reused right after the call,
 * tags follow tag size changes, and a superstep with more requests than
 * the log holds (it is drained early) loses none. */
#include <e_bsp.h>
#include <string.h>

enum { BIG = 8192, MANY = 30000 };

static unsigned char buf[BIG];
static long long acc[4];

static void check_messages(int tagsize)
{
    int n, bytes, status;
    bsp_qsize(&n, &bytes);
    ebsp_message("tag size %d: %d messages, %d bytes", tagsize, n, bytes);
    unsigned char tag[8];
    while (bsp_get_tag(&status, tag), status >= 0) {
        char payload[16] = {0};
        bsp_move(payload, sizeof payload);
        ebsp_message("tag %u %u %s", tag[0], tagsize > 1 ? tag[tagsize - 1] : 0, payload);
    }
}

int main(void)
{
    bsp_begin();
    int s = bsp_pid(), p = bsp_nprocs();
    memset(buf, 0, sizeof buf);
    buf[0] = (unsigned char)(s == 0 ? 0x77 : 0);
    memset(acc, 0, sizeof acc);
    bsp_push_reg(buf, BIG);
    bsp_push_reg(acc, sizeof acc);
    int tagsize = 4;
    bsp_set_tagsize(&tagsize);
    bsp_sync();

    /* core 1 writes into core 0: small, big (direct), small again */
    static unsigned char big[BIG];
    long long v = 0;
    if (s == 1) {
        v = 0x1111;
        bsp_put(0, &v, buf, 0, 8);
        v = 0x2222; /* the put above copied the old value */
        memset(big, 0xAB, sizeof big);
        bsp_put(0, big, buf, 0, BIG);
        bsp_put(0, &v, buf, 8, 8);
    }
    /* every core reads core 0's first word before the puts land */
    long long seen = -1;
    bsp_get(0, buf, 0, &seen, 8);
    /* messages with a 4-byte tag, one of them beyond the log's inline size */
    unsigned char tag[4] = {(unsigned char)s, 0, 0, 0xEE};
    bsp_send((s + 1) % p, tag, "four", 5);
    bsp_send((s + 1) % p, tag, big, 5000);
    bsp_sync();
    long long w0, w1;
    memcpy(&w0, buf, 8);
    memcpy(&w1, buf + 8, 8);
    if (s == 0)
        ebsp_message("words %llx %llx, byte %x", w0, w1, buf[100]);
    ebsp_message("get saw %lld", seen);
    int n, bytes;
    bsp_qsize(&n, &bytes);
    ebsp_message("tag size 4: %d messages, %d bytes", n, bytes);
    unsigned char t4[4];
    int status;
    bsp_get_tag(&status, t4);
    ebsp_message("first tag %u %u, payload %d", t4[0], t4[3], status);

    tagsize = 2;
    bsp_set_tagsize(&tagsize);
    bsp_sync();
    unsigned char t2[2] = {(unsigned char)(10 + s), 0xCD};
    bsp_send(0, t2, "two", 4);
    bsp_sync();
    if (s == 0)
        check_messages(2);

    /* more logged puts in one superstep than the log holds before draining */
    for (int i = 0; i < MANY; i++) {
        long long one = i;
        bsp_put(0, &one, acc, 8 * s, 8);
    }
    bsp_sync();
    if (s == 0)
        ebsp_message("last puts %lld %lld %lld %lld", acc[0], acc[1], acc[2], acc[3]);
    bsp_end();
    return 0;
}
