/*
 * The moves of copy_user (smallcopy.h) for the sizes it copies inline:
 * each move of the program's bytes is listed in a table, section
 * ebsp_copy_fixups, with where it goes on when it faults; the fault
 * handler (faults.c) resumes such a fault there. Each returns 1, or 0
 * when a move faulted (nothing was written then: the loads come first).
 */
#ifndef EBSP_USERMOVES_H
#define EBSP_USERMOVES_H

#include <stddef.h>
#include <stdint.h>

/* An entry of the table: the instruction that may fault and where it goes
 * on, each as its offset from the entry's field (the table needs no
 * relocation). */
struct copy_fixup {
    int32_t insn, resume;
};

/* Inline wherever used: the hot paths' copies are a few moves. */
#define COPY_INLINE inline __attribute__((always_inline))

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
    static COPY_INLINE int copy_user_##suffix(void *dst, const void *src, size_t n)                             \
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
static COPY_INLINE int copy_user_byte(unsigned char *dst, const unsigned char *src)
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
static COPY_INLINE int copy_user_16(void *dst, const void *src, size_t n)
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

#endif /* x86 */

#endif
