/*
 * The program's globals between bsp_init and bsp_begin, on rank 0 of an
 * MPI job: the other ranks run the SPMD function from their bsp_init (as
 * BSPonMPI does), so a global that main sets after bsp_init keeps on
 * them the value it had there. A copy of the program's writable segments
 * taken at bsp_init, compared at rank 0's first bsp_begin, tells which
 * globals main set meanwhile (globals_warning.go names them).
 */
#define _GNU_SOURCE
#include "bsplib.h"

#include <link.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* At most this many bytes of writable segments are copied. */
enum { GLOBALS_MAX = 16 << 20, GLOBALS_SEGMENTS = 8 };

static struct {
    int n;
    uintptr_t bias;
    struct {
        uintptr_t at; /* the segment's address in this process */
        size_t len;
        unsigned char *copy;
    } seg[GLOBALS_SEGMENTS];
} G;

static int find_program(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    (void)arg;
    /* the first object is the program itself */
    G.bias = info->dlpi_addr;
    size_t total = 0;
    for (int i = 0; i < info->dlpi_phnum && G.n < GLOBALS_SEGMENTS; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_W) || ph->p_memsz == 0)
            continue;
        total += ph->p_memsz;
        if (total > GLOBALS_MAX)
            break;
        G.seg[G.n].at = info->dlpi_addr + ph->p_vaddr;
        G.seg[G.n].len = ph->p_memsz;
        G.n++;
    }
    return 1;
}

void bl_globals_snapshot(void)
{
    bl_globals_free();
    dl_iterate_phdr(find_program, NULL);
    for (int i = 0; i < G.n; i++) {
        G.seg[i].copy = malloc(G.seg[i].len);
        if (!G.seg[i].copy) {
            bl_globals_free();
            return;
        }
        memcpy(G.seg[i].copy, (const void *)G.seg[i].at, G.seg[i].len);
    }
}

int bl_globals_changed(uintptr_t *from, uintptr_t *to, int max)
{
    int n = 0;
    for (int i = 0; i < G.n && n < max; i++) {
        const unsigned char *now = (const unsigned char *)G.seg[i].at, *then = G.seg[i].copy;
        for (size_t k = 0; k < G.seg[i].len && n < max; k++) {
            if (now[k] == then[k])
                continue;
            size_t end = k + 1;
            while (end < G.seg[i].len && now[end] != then[end])
                end++;
            /* addresses as the program's file gives them (its symbols') */
            from[n] = G.seg[i].at + k - G.bias;
            to[n] = G.seg[i].at + end - G.bias;
            n++;
            k = end;
        }
    }
    return n;
}

void bl_globals_free(void)
{
    for (int i = 0; i < G.n; i++)
        free(G.seg[i].copy);
    memset(&G, 0, sizeof G);
}
