/*
 * memcpy for the shim's hot paths, which mostly copy 4- and 8-byte words:
 * gcc turns a memcpy of a variable size into `rep movsq` or a call into the
 * C library (~10-40 ns here); the sizes that matter are done with a few
 * fixed-size moves instead, and the rest goes to the C library.
 */
#ifndef EBSP_SMALLCOPY_H
#define EBSP_SMALLCOPY_H

#include <stddef.h>
#include <string.h>

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

#endif
