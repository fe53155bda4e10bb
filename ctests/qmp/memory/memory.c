/*
 * Memory: QMP_allocate_memory and the aligned form, and the message memory
 * forms moved around a ring (each node sends to node+1 and receives from
 * node-1 with QMP_declare_send_to / QMP_declare_receive_from): contiguous
 * into strided, strided into contiguous, a strided array (two regions) and
 * an indexed msgmem (blocks of elements at element offsets). The bytes
 * between the blocks of a receive must stay as they were.
 */
#include "qmptest.h"
#include <stdint.h>

enum { WORDS = 64, BLOCK = 4, STRIDE = 8, UNTOUCHED = -1 };

/* The word i that node sends. */
static int word(int node, int i) { return node * 1000 + i; }

/* One message from send_mem to node+1 into recv_mem from node-1. */
static int ring(QMP_msgmem_t send_mem, QMP_msgmem_t recv_mem, const char *what)
{
    int n = QMP_get_number_of_nodes(), me = QMP_get_node_number();
    QMP_msghandle_t r = QMP_declare_receive_from(recv_mem, (me + n - 1) % n, 0);
    QMP_msghandle_t s = QMP_declare_send_to(send_mem, (me + 1) % n, 0);
    if (check(r && s, "%s: a declaration failed: %s", what, QMP_get_error_string(0)))
        return 1;
    int bad = check(QMP_start(r) == QMP_SUCCESS, "%s: QMP_start(receive)", what);
    bad += check(QMP_start(s) == QMP_SUCCESS, "%s: QMP_start(send)", what);
    bad += check(QMP_wait(s) == QMP_SUCCESS, "%s: QMP_wait(send)", what);
    bad += check(QMP_wait(r) == QMP_SUCCESS, "%s: QMP_wait(receive)", what);
    QMP_free_msghandle(s);
    QMP_free_msghandle(r);
    return bad;
}

static int allocation(void)
{
    QMP_mem_t *m = QMP_allocate_memory(1000);
    QMP_mem_t *a = QMP_allocate_aligned_memory(4096, 256, QMP_MEM_DEFAULT);
    int bad = check(m && QMP_get_memory_pointer(m), "QMP_allocate_memory(1000) gave nothing");
    bad += check(a && QMP_get_memory_pointer(a), "QMP_allocate_aligned_memory(4096, 256) gave nothing");
    if (bad)
        return bad;
    bad += check((uintptr_t)QMP_get_memory_pointer(a) % 256 == 0, "aligned memory at %p", QMP_get_memory_pointer(a));
    memset(QMP_get_memory_pointer(m), 1, 1000);
    memset(QMP_get_memory_pointer(a), 2, 4096);
    QMP_free_memory(m);
    QMP_free_memory(a);
    return bad;
}

/* WORDS contiguous words into blocks of BLOCK words STRIDE words apart. */
static int contiguous_to_strided(int *out, int *in, int from)
{
    for (int i = 0; i < WORDS * STRIDE / BLOCK; i++)
        in[i] = UNTOUCHED;
    QMP_msgmem_t s = QMP_declare_msgmem(out, WORDS * sizeof(int));
    QMP_msgmem_t r = QMP_declare_strided_msgmem(in, BLOCK * sizeof(int), WORDS / BLOCK, STRIDE * sizeof(int));
    int bad = ring(s, r, "contiguous to strided");
    for (int i = 0; i < WORDS * STRIDE / BLOCK; i++) {
        int want = i % STRIDE < BLOCK ? word(from, i / STRIDE * BLOCK + i % STRIDE) : UNTOUCHED;
        bad += check(in[i] == want, "contiguous to strided: word %d is %d, want %d", i, in[i], want);
    }
    QMP_free_msgmem(s);
    QMP_free_msgmem(r);
    return bad;
}

/* The blocks of a strided send into WORDS contiguous words. */
static int strided_to_contiguous(int *in, int from)
{
    int out[WORDS * STRIDE / BLOCK];
    for (int i = 0; i < WORDS * STRIDE / BLOCK; i++)
        out[i] = word(QMP_get_node_number(), i);
    QMP_msgmem_t s = QMP_declare_strided_msgmem(out, BLOCK * sizeof(int), WORDS / BLOCK, STRIDE * sizeof(int));
    QMP_msgmem_t r = QMP_declare_msgmem(in, WORDS * sizeof(int));
    int bad = ring(s, r, "strided to contiguous");
    for (int i = 0; i < WORDS; i++) {
        int want = word(from, i / BLOCK * STRIDE + i % BLOCK);
        bad += check(in[i] == want, "strided to contiguous: word %d is %d, want %d", i, in[i], want);
    }
    QMP_free_msgmem(s);
    QMP_free_msgmem(r);
    return bad;
}

/* Two strided regions (3 blocks of 2 words 4 apart, 2 blocks of 3 words
 * 5 apart) sent as one message of 12 words. */
static int strided_array(int *in, int from)
{
    int a[12], b[10];
    for (int i = 0; i < 12; i++)
        a[i] = word(QMP_get_node_number(), i);
    for (int i = 0; i < 10; i++)
        b[i] = word(QMP_get_node_number(), 100 + i);
    void *base[2] = {a, b};
    size_t blksize[2] = {2 * sizeof(int), 3 * sizeof(int)};
    int nblocks[2] = {3, 2};
    ptrdiff_t stride[2] = {4 * sizeof(int), 5 * sizeof(int)};
    QMP_msgmem_t s = QMP_declare_strided_array_msgmem(base, blksize, nblocks, stride, 2);
    QMP_msgmem_t r = QMP_declare_msgmem(in, 12 * sizeof(int));
    int bad = ring(s, r, "strided array");
    static const int order[12] = {0, 1, 4, 5, 8, 9, 100, 101, 102, 105, 106, 107};
    for (int i = 0; i < 12; i++)
        bad += check(in[i] == word(from, order[i]), "strided array: word %d is %d, want %d", i, in[i], word(from, order[i]));
    QMP_free_msgmem(s);
    QMP_free_msgmem(r);
    return bad;
}

/* Blocks of 2, 1 and 3 elements (ints) at elements 0, 5 and 9, into 6 words. */
static int indexed(int *in, int from)
{
    int out[12];
    for (int i = 0; i < 12; i++)
        out[i] = word(QMP_get_node_number(), i);
    int blocklen[3] = {2, 1, 3}, index[3] = {0, 5, 9};
    QMP_msgmem_t s = QMP_declare_indexed_msgmem(out, blocklen, index, sizeof(int), 3);
    QMP_msgmem_t r = QMP_declare_msgmem(in, 6 * sizeof(int));
    int bad = ring(s, r, "indexed");
    static const int order[6] = {0, 1, 5, 9, 10, 11};
    for (int i = 0; i < 6; i++)
        bad += check(in[i] == word(from, order[i]), "indexed: word %d is %d, want %d", i, in[i], word(from, order[i]));
    QMP_free_msgmem(s);
    QMP_free_msgmem(r);
    return bad;
}

int main(int argc, char **argv)
{
    start(&argc, &argv);
    int n = QMP_get_number_of_nodes(), me = QMP_get_node_number(), from = (me + n - 1) % n;
    int bad = allocation();

    QMP_mem_t *out_mem = QMP_allocate_memory(WORDS * sizeof(int));
    QMP_mem_t *in_mem = QMP_allocate_memory(WORDS * STRIDE / BLOCK * sizeof(int));
    if (check(out_mem && in_mem, "QMP_allocate_memory failed"))
        return finish(1);
    int *out = QMP_get_memory_pointer(out_mem), *in = QMP_get_memory_pointer(in_mem);
    for (int i = 0; i < WORDS; i++)
        out[i] = word(me, i);
    bad += contiguous_to_strided(out, in, from);
    bad += strided_to_contiguous(in, from);
    bad += strided_array(in, from);
    bad += indexed(in, from);
    say("received from node %d: %d %d %d", from, in[0], in[1], in[5]);
    QMP_free_memory(out_mem);
    QMP_free_memory(in_mem);
    return finish(bad);
}
