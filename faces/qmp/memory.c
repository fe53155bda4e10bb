/*
 * Memory: QMP_allocate_memory and the message memory a handle sends from
 * or receives into. Contiguous memory is the channel's buffer itself; a
 * strided or indexed layout is a list of blocks, packed into a staging
 * buffer before a send and unpacked after a receive (msgmem.h).
 */
#include "msgmem.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct QMP_mem_struct {
    void *raw;     /* what malloc returned */
    void *aligned; /* what the program uses */
};

QMP_mem_t *QMP_allocate_aligned_memory(size_t nbytes, size_t alignment, int flags)
{
    (void)flags;
    struct qmp_node *n = qmp_self();
    if (alignment == QMP_ALIGN_ANY)
        alignment = 1;
    if (alignment & (alignment - 1)) {
        qmp_fail(n, QMP_INVALID_ARG, "QMP_allocate_aligned_memory: alignment %zu is not a power of 2", alignment);
        return NULL;
    }
    QMP_mem_t *m = malloc(sizeof *m);
    if (m && nbytes <= SIZE_MAX - alignment)
        m->raw = malloc(nbytes + alignment);
    if (!m || nbytes > SIZE_MAX - alignment || !m->raw) {
        free(m);
        qmp_fail(n, QMP_NOMEM_ERR, "QMP_allocate_memory: no memory for %zu bytes", nbytes);
        return NULL;
    }
    uintptr_t at = ((uintptr_t)m->raw + alignment - 1) & ~(uintptr_t)(alignment - 1);
    m->aligned = (void *)at;
    return m;
}

QMP_mem_t *QMP_allocate_memory(size_t nbytes)
{
    return QMP_allocate_aligned_memory(nbytes, QMP_ALIGN_DEFAULT, QMP_MEM_DEFAULT);
}

void *QMP_get_memory_pointer(QMP_mem_t *mem)
{
    return mem ? mem->aligned : NULL;
}

void QMP_free_memory(QMP_mem_t *mem)
{
    if (!mem)
        return;
    free(mem->raw);
    free(mem);
}

/* A msgmem of nblocks blocks (filled by the caller), or NULL. */
static QMP_msgmem_t msgmem_new(int nblocks)
{
    QMP_msgmem_t m = calloc(1, sizeof *m + (size_t)nblocks * sizeof m->blocks[0]);
    if (!m) {
        qmp_fail(qmp_self(), QMP_NOMEM_ERR, "QMP_declare_msgmem: out of memory");
        return NULL;
    }
    m->magic = MSGMEM_MAGIC;
    m->nblocks = nblocks;
    return m;
}

/* Adds the block; 0 when the total passes INT_MAX (a channel's limit). */
static int add_block(QMP_msgmem_t m, int i, char *at, size_t len)
{
    m->blocks[i].at = at;
    m->blocks[i].len = len;
    if (len > (size_t)INT_MAX - m->nbytes)
        return 0;
    m->nbytes += len;
    return 1;
}

static QMP_msgmem_t too_large(QMP_msgmem_t m, const char *call)
{
    free(m);
    qmp_fail(qmp_self(), QMP_MEMSIZE_TOOBIG, "%s: more than %d bytes", call, INT_MAX);
    return NULL;
}

QMP_msgmem_t QMP_declare_msgmem(const void *mem, size_t nbytes)
{
    if (!mem && nbytes) {
        qmp_fail(qmp_self(), QMP_INVALID_ARG, "QMP_declare_msgmem: NULL memory of %zu bytes", nbytes);
        return NULL;
    }
    QMP_msgmem_t m = msgmem_new(1);
    if (m && !add_block(m, 0, (char *)mem, nbytes))
        return too_large(m, "QMP_declare_msgmem");
    return m;
}

QMP_msgmem_t QMP_declare_strided_msgmem(void *base, size_t blksize, int nblocks, ptrdiff_t stride)
{
    if (!base || nblocks < 0) {
        qmp_fail(qmp_self(), QMP_INVALID_ARG, "QMP_declare_strided_msgmem: NULL base or %d blocks", nblocks);
        return NULL;
    }
    QMP_msgmem_t m = msgmem_new(nblocks);
    for (int i = 0; m && i < nblocks; i++)
        if (!add_block(m, i, (char *)base + (ptrdiff_t)i * stride, blksize))
            return too_large(m, "QMP_declare_strided_msgmem");
    if (m)
        m->staged = 1;
    return m;
}

QMP_msgmem_t QMP_declare_strided_array_msgmem(void *base[], size_t blksize[], int nblocks[], ptrdiff_t stride[],
                                              int num)
{
    const char *call = "QMP_declare_strided_array_msgmem";
    if (!base || !blksize || !nblocks || !stride || num < 0) {
        qmp_fail(qmp_self(), QMP_INVALID_ARG, "%s: NULL arrays or %d of them", call, num);
        return NULL;
    }
    long long total = 0;
    for (int k = 0; k < num; k++) {
        if (nblocks[k] < 0 || !base[k]) {
            qmp_fail(qmp_self(), QMP_INVALID_ARG, "%s: entry %d: NULL base or %d blocks", call, k, nblocks[k]);
            return NULL;
        }
        total += nblocks[k];
    }
    if (total > INT_MAX) {
        qmp_fail(qmp_self(), QMP_MEMSIZE_TOOBIG, "%s: %lld blocks", call, total);
        return NULL;
    }
    QMP_msgmem_t m = msgmem_new((int)total);
    for (int k = 0, i = 0; m && k < num; k++)
        for (int b = 0; b < nblocks[k]; b++, i++)
            if (!add_block(m, i, (char *)base[k] + (ptrdiff_t)b * stride[k], blksize[k]))
                return too_large(m, call);
    if (m)
        m->staged = 1;
    return m;
}

QMP_msgmem_t QMP_declare_indexed_msgmem(void *base, int blocklen[], int index[], int elemsize, int count)
{
    const char *call = "QMP_declare_indexed_msgmem";
    if (!base || !blocklen || !index || elemsize < 0 || count < 0) {
        qmp_fail(qmp_self(), QMP_INVALID_ARG, "%s: NULL arrays, element size %d or %d blocks", call, elemsize,
                 count);
        return NULL;
    }
    QMP_msgmem_t m = msgmem_new(count);
    for (int i = 0; m && i < count; i++) {
        if (blocklen[i] < 0) {
            free(m);
            qmp_fail(qmp_self(), QMP_INVALID_ARG, "%s: block %d has length %d", call, i, blocklen[i]);
            return NULL;
        }
        if (!add_block(m, i, (char *)base + (ptrdiff_t)index[i] * elemsize, (size_t)blocklen[i] * (size_t)elemsize))
            return too_large(m, call);
    }
    if (m)
        m->staged = 1;
    return m;
}

void QMP_free_msgmem(QMP_msgmem_t m)
{
    if (!m || m->magic != MSGMEM_MAGIC)
        return;
    m->magic = 0;
    free(m);
}

void msgmem_pack(const struct QMP_msgmem_struct *m, char *to, size_t n)
{
    for (int i = 0; i < m->nblocks && n > 0; i++) {
        size_t len = m->blocks[i].len < n ? m->blocks[i].len : n;
        memcpy(to, m->blocks[i].at, len);
        to += len;
        n -= len;
    }
}

void msgmem_unpack(const struct QMP_msgmem_struct *m, const char *from, size_t n)
{
    for (int i = 0; i < m->nblocks && n > 0; i++) {
        size_t len = m->blocks[i].len < n ? m->blocks[i].len : n;
        memcpy(m->blocks[i].at, from, len);
        from += len;
        n -= len;
    }
}
