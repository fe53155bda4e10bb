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
 * (section ebsp_copy_fixups: each faulting instruction and where it goes
 * on instead), so that the fault handler (faults.c) resumes a fault there
 * at the copy's failure exit instead of ending the process, as an
 * operating system kernel's copies from user space do: the copy costs no
 * look before it (a test of the result).
 */
#ifndef EBSP_SMALLCOPY_H
#define EBSP_SMALLCOPY_H

#include <stddef.h>
#include <stdint.h>
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

/* An entry of the table: the instruction that may fault and where it goes
 * on, each as its offset from the entry's field (the table needs no
 * relocation). */
struct copy_fixup {
    int32_t insn, resume;
};

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

/* Inline wherever used: the hot paths' copies are a few moves. */
#define COPY_INLINE static inline __attribute__((always_inline))

#if defined(__x86_64__) || defined(__i386__)

/* The asm of one copy: its moves of the program's bytes, labelled 1: to
 * 4:, each listed with the C label `fail` as where it goes on (asm goto:
 * no flag to set or test; the asm changes no register that gcc expects to
 * keep, so resuming there mid-way is as if it had jumped). */
#define COPY_FIXUP(label) ".pushsection ebsp_copy_fixups,\"a\"\n\t.balign 4\n\t.long " label "b - ., %l[fail] - .\n\t.popsection\n\t"
/* The memory the asm reads and writes, of a size gcc need not know. */
#define COPY_MEMORY_OUT(dst) "+m"(*(char(*)[])(dst))
#define COPY_MEMORY_IN(src) "m"(*(const char(*)[])(src))

/* n bytes, w <= n <= 2w for a word size w (4, or 8 on x86-64): the first
 * and the last word. */
#define COPY_WORDS(suffix, reg, width)                                                                   \
    COPY_INLINE int copy_user_##suffix(void *dst, const void *src, size_t n)                             \
    {                                                                                                    \
        unsigned long a, b;                                                                              \
        __asm__ goto("1:\tmov" #suffix " (%[s]), %" reg "[a]\n\t"                                         \
                     "2:\tmov" #suffix " -" #width "(%[s],%[n]), %" reg "[b]\n\t"                          \
                     "3:\tmov" #suffix " %" reg "[a], (%[d])\n\t"                                          \
                     "4:\tmov" #suffix " %" reg "[b], -" #width "(%[d],%[n])\n\t" COPY_FIXUP("1")           \
                         COPY_FIXUP("2") COPY_FIXUP("3") COPY_FIXUP("4")                                 \
                     : [a] "=&r"(a), [b] "=&r"(b), COPY_MEMORY_OUT(dst)                                  \
                     : [s] "r"(src), [d] "r"(dst), [n] "r"(n), COPY_MEMORY_IN(src)                       \
                     :                                                                                   \
                     : fail);                                                                            \
        return 1;                                                                                        \
    fail:                                                                                                \
        return 0;                                                                                        \
    }
COPY_WORDS(l, "k", 4)
#if defined(__x86_64__)
COPY_WORDS(q, "q", 8)
#endif

/* One byte. */
COPY_INLINE int copy_user_byte(unsigned char *dst, const unsigned char *src)
{
    unsigned char a;
    __asm__ goto("1:\tmovb (%[s]), %[a]\n\t"
                 "2:\tmovb %[a], (%[d])\n\t" COPY_FIXUP("1") COPY_FIXUP("2")
                 : [a] "=&q"(a), "+m"(*dst)
                 : [s] "r"(src), [d] "r"(dst), "m"(*src)
                 :
                 : fail);
    return 1;
fail:
    return 0;
}

#if defined(__x86_64__)
/* 16 < n <= 32 bytes: the first and the last 16 (SSE2, which every
 * x86-64 has). */
COPY_INLINE int copy_user_16(void *dst, const void *src, size_t n)
{
    __attribute__((vector_size(16))) char a, b;
    __asm__ goto("1:\tmovdqu (%[s]), %[a]\n\t"
                 "2:\tmovdqu -16(%[s],%[n]), %[b]\n\t"
                 "3:\tmovdqu %[a], (%[d])\n\t"
                 "4:\tmovdqu %[b], -16(%[d],%[n])\n\t" COPY_FIXUP("1") COPY_FIXUP("2") COPY_FIXUP("3") COPY_FIXUP("4")
                 : [a] "=&x"(a), [b] "=&x"(b), COPY_MEMORY_OUT(dst)
                 : [s] "r"(src), [d] "r"(dst), [n] "r"(n), COPY_MEMORY_IN(src)
                 :
                 : fail);
    return 1;
fail:
    return 0;
}
#endif

COPY_INLINE int copy_user(void *dst, const void *src, size_t n)
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

COPY_INLINE int copy_user(void *dst, const void *src, size_t n)
{
    copy_small(dst, src, n);
    return 1;
}

#endif

#endif
