/*
 * The memory of the engine's blocks and write lists (engine.PutWriter's
 * Alloc and Free): the C heap, as the puts that direct_write_list writes
 * are read there. Every piece is linked into one list from a global, so
 * that a leak checker (make test-asan) sees it reachable while the engine,
 * whose pointers live in Go memory it does not scan, holds it: a program
 * that exits inside a section leaves its blocks allocated, as it leaves
 * the cores' logs.
 */
#include "direct.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

struct putmem_piece {
    struct putmem_piece *prev, *next;
};

static struct putmem_piece pieces = {&pieces, &pieces};
static pthread_mutex_t pieces_lock = PTHREAD_MUTEX_INITIALIZER;

/* malloc's header: a piece of 2^k - PUTMEM_OVERHEAD bytes fills a 2^k chunk. */
enum { MALLOC_HEADER = sizeof(size_t), PUTMEM_OVERHEAD = sizeof(struct putmem_piece) + MALLOC_HEADER };

void *putmem_alloc(size_t n, size_t *usable)
{
    size_t chunk = 64;
    while (chunk - PUTMEM_OVERHEAD < n) {
        if (chunk > SIZE_MAX / 2)
            return NULL;
        chunk *= 2;
    }
    struct putmem_piece *p = malloc(chunk - MALLOC_HEADER);
    if (!p)
        return NULL;
    pthread_mutex_lock(&pieces_lock);
    p->prev = &pieces;
    p->next = pieces.next;
    pieces.next->prev = p;
    pieces.next = p;
    pthread_mutex_unlock(&pieces_lock);
    *usable = chunk - PUTMEM_OVERHEAD;
    return p + 1;
}

void putmem_free(void *mem)
{
    struct putmem_piece *p = (struct putmem_piece *)mem - 1;
    pthread_mutex_lock(&pieces_lock);
    p->prev->next = p->next;
    p->next->prev = p->prev;
    pthread_mutex_unlock(&pieces_lock);
    free(p);
}
