/*
 * The "wild" address of the tests of bad registrations and calls: a page
 * with nothing a program can use. reserve_wild_page keeps it so, reserving
 * the page without access (best effort: under AddressSanitizer the page
 * can be its own already), so that no stack or arena of a loaded run lands
 * on it. Once per process: BSPlib cores may run main again.
 */
#ifndef CTESTS_WILD_PAGE_H
#define CTESTS_WILD_PAGE_H

#include <stdint.h>
#include <sys/mman.h>

#define WILD_PAGE ((uintptr_t)0x7f0000001000ull)

static inline void reserve_wild_page(void)
{
    static int reserved;
    if (reserved++ || sizeof(void *) != 8)
        return;
    mmap((void *)WILD_PAGE, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
}

#endif
