/*
 * BSPlib conformance: messages (BSMP). Every check prints one line
 * "$PP: name: ok" (or what went wrong).
 */
#include <bsp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check(const char *name, int ok)
{
    printf("$%02u: %s: %s\n", (unsigned)bsp_pid(), name, ok ? "ok" : "FAILED");
}

static void spmd(void)
{
    bsp_begin(bsp_nprocs());
    bsp_pid_t s = bsp_pid();
    bsp_nprocs_t p = bsp_nprocs();
    bsp_pid_t next = (s + 1) % p;

    /* the tag size starts at 0; a new one takes effect at the next sync,
     * and bsp_set_tagsize returns the one in force */
    bsp_size_t ts = 8;
    bsp_set_tagsize(&ts);
    check("initial tag size 0", ts == 0);
    int payload = 1000 + (int)s;
    bsp_send(next, NULL, &payload, sizeof payload); /* still tag size 0 */
    bsp_sync();

    /* superstep 1: the message sent with tag size 0 */
    bsp_nprocs_t packets = 99;
    bsp_size_t bytes = 99;
    bsp_qsize(&packets, &bytes);
    int ok = packets == 1 && bytes == sizeof(int);
    uint64_t tag = 0x1111;
    bsp_size_t status = 0;
    bsp_get_tag(&status, &tag);
    ok &= status == sizeof(int) && tag == 0x1111; /* a 0-byte tag copies nothing */
    int in = 0;
    bsp_move(&in, sizeof in);
    ok &= in == 1000 + (int)((s + p - 1) % p);
    bsp_get_tag(&status, &tag);
    ok &= status == SIZE_MAX; /* empty queue: (bsp_size_t)-1 */
    bsp_qsize(&packets, &bytes);
    ok &= packets == 0 && bytes == 0;
    check("tag size change at the sync", ok);

    /* messages to every core, with 8-byte tags; one of 0 bytes; to self */
    ts = 0;
    bsp_set_tagsize(&ts); /* asks for 0 next superstep, returns 8 */
    check("set_tagsize returns the size in force", ts == 8);
    for (bsp_pid_t t = 0; t < p; t++) {
        uint64_t tg = 100 * (uint64_t)s + t;
        char text[32];
        int len = snprintf(text, sizeof text, "from %u to %u", (unsigned)s, (unsigned)t);
        bsp_send(t, &tg, text, (size_t)len + 1);
        bsp_send(t, &tg, NULL, 0);
    }
    bsp_sync();

    /* superstep 2: 2p messages, p of them empty; tags say who sent them */
    bsp_qsize(&packets, &bytes);
    size_t want_bytes = 0;
    for (bsp_pid_t q = 0; q < p; q++) {
        char text[32];
        want_bytes += (size_t)snprintf(text, sizeof text, "from %u to %u", (unsigned)q, (unsigned)s) + 1;
    }
    ok = packets == 2 * p && bytes == want_bytes;
    check("qsize counts messages and payload bytes", ok);
    unsigned long seen = 0;
    int empty = 0;
    for (bsp_nprocs_t m = 0; m < 2 * p; m++) {
        uint64_t tg = ~(uint64_t)0;
        bsp_get_tag(&status, &tg); /* the 8-byte tag it was sent with (tag size 0 now) */
        bsp_pid_t from = (bsp_pid_t)(tg / 100);
        ok &= tg % 100 == s && from < p;
        if (status == 0) {
            empty++;
            bsp_move(NULL, 0);
            continue;
        }
        void *tp, *pp;
        bsp_size_t size = bsp_hpmove(&tp, &pp);
        char want[32];
        snprintf(want, sizeof want, "from %u to %u", (unsigned)from, (unsigned)s);
        ok &= size == status && strcmp(pp, want) == 0 && memcmp(tp, &tg, sizeof tg) == 0;
        seen |= 1ul << from;
    }
    ok &= empty == (int)p && seen == (p >= 64 ? ~0ul : (1ul << p) - 1);
    void *tp = NULL, *pp = NULL;
    ok &= bsp_hpmove(&tp, &pp) == SIZE_MAX && tp == NULL && pp == NULL;
    check("get_tag, hpmove, empty payloads, send to self", ok);

    /* bsp_move cuts a payload to the buffer; unread messages vanish at the
     * next sync; bsp_hpsend is bsp_send */
    char big[16];
    memset(big, 'a' + (int)s, sizeof big);
    bsp_send(next, NULL, big, sizeof big);
    bsp_hpsend(next, NULL, big, 3);
    bsp_send(next, NULL, big, 5); /* left unread */
    bsp_sync();
    char buf[8] = "-------";
    bsp_get_tag(&status, NULL);
    ok = status == sizeof big;
    bsp_move(buf, 4);
    char c = (char)('a' + (int)((s + p - 1) % p));
    ok &= buf[0] == c && buf[3] == c && buf[4] == '-';
    bsp_qsize(&packets, &bytes);
    ok &= packets == 2 && bytes == 8;
    bsp_move(buf, sizeof buf);
    bsp_qsize(&packets, &bytes);
    ok &= packets == 1 && bytes == 5;
    check("move truncates", ok);
    bsp_sync();
    bsp_qsize(&packets, &bytes);
    check("unread messages vanish at the sync", packets == 0 && bytes == 0);

    /* a tag size change with messages in flight: a message keeps the tag
     * size of the superstep that sent it, and bsp_get_tag copies that */
    ts = 8;
    bsp_set_tagsize(&ts);
    bsp_sync();
    uint64_t t8 = 0x0102030405060708u;
    bsp_send(next, &t8, NULL, 0);
    ts = 2;
    bsp_set_tagsize(&ts);
    bsp_sync();
    uint64_t got = 0;
    bsp_get_tag(&status, &got);
    check("a message keeps its tag size", status == 0 && got == t8);

    /* a message with neither tag nor payload (to a core of another rank
     * under mpirun: its record is a bare header) */
    ts = 0;
    bsp_set_tagsize(&ts);
    bsp_sync();
    bsp_send(next, NULL, NULL, 0);
    bsp_sync();
    bsp_qsize(&packets, &bytes);
    char no_tag;
    bsp_get_tag(&status, &no_tag);
    check("an empty message arrives", packets == 1 && bytes == 0 && status == 0);
    bsp_end();
}

int main(int argc, char **argv)
{
    bsp_init(spmd, argc, argv);
    spmd();
    return 0;
}
