/* BSMP on every core: tag sizes 0, 4, 8 and 3, payloads of varying size,
 * messages to oneself, empty queues, truncating moves and bsp_hpmove. */
#include <e_bsp.h>
#include <string.h>

static int set_tagsize(int size)
{
    int t = size;
    bsp_set_tagsize(&t);
    return t; /* the old size */
}

int main(void)
{
    bsp_begin();
    int p = bsp_nprocs(), s = bsp_pid();
    int next = (s + 1) % p, prev = (s + p - 1) % p;
    char bytes[64];

    /* superstep 0: tag size 0; the new size 4 applies from the next superstep */
    int old = set_tagsize(4);
    memset(bytes, s, sizeof bytes);
    bsp_send(next, NULL, bytes, s + 1);
    ebsp_message("tagsize old %d now %d", old, ebsp_get_tagsize());
    bsp_sync();

    /* superstep 1: one message of prev+1 bytes; move truncates to 2 */
    int n, acc, status;
    bsp_qsize(&n, &acc);
    char tag4[4] = {9, 9, 9, 9};
    bsp_get_tag(&status, tag4);
    char buf[2] = {0, 0};
    bsp_move(buf, 2);
    int after;
    bsp_get_tag(&after, tag4);
    ebsp_message("tagsize %d: %d msg %d bytes, status %d, moved %d %d, then status %d, tag untouched %d",
                 ebsp_get_tagsize(), n, acc, status, buf[0], status > 1 ? buf[1] : -1, after, tag4[0]);
    /* all-to-all, including to myself, payload size (dst+s)%5 */
    for (int dst = 0; dst < p; dst++) {
        int tag = s * 100 + dst;
        bsp_send(dst, &tag, bytes, (dst + s) % 5);
    }
    set_tagsize(8);
    bsp_sync();

    /* superstep 2: p messages, from core 0 upwards */
    bsp_qsize(&n, &acc);
    int ok = 1, want_acc = 0;
    for (int src = 0; src < p; src++) {
        void *tp, *pp;
        int size = bsp_hpmove(&tp, &pp);
        int tag;
        memcpy(&tag, tp, sizeof tag);
        ok &= tag == src * 100 + s && size == (s + src) % 5;
        for (int i = 0; i < size; i++)
            ok &= ((char *)pp)[i] == (char)src;
        want_acc += (s + src) % 5;
    }
    void *tp = NULL, *pp = NULL;
    int empty = bsp_hpmove(&tp, &pp);
    ebsp_message("all-to-all %s: %d msgs %d bytes (want %d), then %d %s", ok ? "ok" : "WRONG", n, acc, want_acc,
                 empty, tp || pp ? "pointers set" : "pointers untouched");
    long long tag8 = 0x1122334455667700LL + s;
    bsp_send(next, &tag8, NULL, 0);
    set_tagsize(3);
    bsp_sync();

    /* superstep 3: a message sent with an 8-byte tag; the tag size is now 3,
     * so bsp_get_tag copies only its first 3 bytes */
    long long got8 = 0;
    bsp_get_tag(&status, &got8);
    bsp_move(NULL, 0);
    char tag3[3] = {'a', 'b', (char)('a' + s)};
    bsp_send(prev, tag3, "xyz", 3);
    bsp_send(prev, tag3, "unread", 6);
    int tsize = ebsp_get_tagsize();
    bsp_sync();

    /* superstep 4: odd tag size 3; the second message is left unread */
    char got3[4] = {0, 0, 0, 0};
    bsp_get_tag(&status, got3);
    char payload[4] = {0, 0, 0, 0};
    bsp_move(payload, 3);
    bsp_qsize(&n, &acc);
    ebsp_message("tag8 cut to 3 bytes %s (tagsize was %d), tag3 %s payload %s, %d left", got8 == ((0x1122334455667700LL + prev) & 0xffffff) ? "ok" : "WRONG",
                 tsize, got3, payload, n);
    bsp_sync();
    bsp_qsize(&n, &acc);
    if (n != 0)
        ebsp_message("unread messages survived a sync: %d", n);
    bsp_end();
    return 0;
}
