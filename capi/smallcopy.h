/*
 * memcpy for the shim's hot paths, which mostly copy 4- and 8-byte words:
 * gcc turns a memcpy of a variable size into `rep movsq` or a call into the
 * C library (~10-40 ns here); the sizes that matter are done with a few
 * fixed-size moves instead, and the rest goes to the C library.
 *
 * copy_user is the copy for the program's memory, which may not be there
 * (a wild source, a bsp_hpget's destination): it copies as copy_small does
 * and returns 1, or returns 0 with nothing done when that memory cannot be
 * read or written, and the call then takes the way that reports it (the
 * engine's). Its moves of the program's bytes are listed in a table
 * (usermoves.h: each faulting instruction and where it goes on instead),
 * so that the fault handler (faults.c) resumes a fault there at the
 * copy's failure exit instead of ending the process, as an operating
 * system kernel's copies from user space do: the copy costs no look
 * before it.
 */
#ifndef EBSP_SMALLCOPY_H
#define EBSP_SMALLCOPY_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "usermoves.h"

/* The C library's memcpy, out of line. */
static void *(*const volatile smallcopy_large)(void *, const void *, size_t) = memcpy;

static inline void copy_small(void *dst, const void *src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    if (n >= 8 && n <= 16) {
        memcpy(d, s, 8);
        memcpy(d + n - 8, s + n - 8, 8);
    } else if (n >= 4 && n < 8) {
        memcpy(d, s, 4);
        memcpy(d + n - 4, s + n - 4, 4);
    } else if (n < 4) {
        for (size_t i = 0; i < n; i++)
            d[i] = s[i];
    } else {
        smallcopy_large(d, s, n);
    }
}

/* copy_user of more bytes than the inline moves take: every page of both
 * ranges touched by a listed move first, then memcpy (faults.c). */
int copy_user_large(void *dst, const void *src, size_t n);

/* The most bytes copy_user copies with inline moves, no call. A fast path
 * that goes on to a call when the copy fails takes only these: a copy
 * that calls out keeps the fast path's arguments in saved registers,
 * which costs every call their saving (bsp_put: 85 -> 91 instructions). */
#if defined(__x86_64__)
enum { COPY_INLINE_MAX = 32 };
#elif defined(__i386__)
enum { COPY_INLINE_MAX = 8 };
#else
enum { COPY_INLINE_MAX = 16 };
#endif

#if defined(__x86_64__) || defined(__i386__)

static COPY_INLINE int copy_user(void *dst, const void *src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
#if defined(__x86_64__)
    if (n >= 8 && n <= 16)
        return copy_user_q(d, s, n);
    if (n > 16 && n <= 32)
        return copy_user_16(d, s, n);
    if (n > 32)
        return copy_user_large(d, s, n);
#else
    if (n > 8)
        return copy_user_large(d, s, n);
    if (n == 8)
        return copy_user_l(d, s, n);
#endif
    if (n >= 4)
        return copy_user_l(d, s, n);
    /* 0 to 3: the first, the middle and the last byte */
    return n == 0 || (copy_user_byte(d, s) && copy_user_byte(d + n / 2, s + n / 2) && copy_user_byte(d + n - 1, s + n - 1));
}

#else /* no table on this architecture: the copy is plain, and a fault ends the process (named, faults.c) */

static COPY_INLINE int copy_user(void *dst, const void *src, size_t n)
{
    copy_small(dst, src, n);
    return 1;
}

#endif

#endif
