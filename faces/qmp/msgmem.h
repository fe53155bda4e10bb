/*
 * Message memory (memory.c) as the message handles (messages.c) see it.
 */
#ifndef EBSP_QMP_MSGMEM_H
#define EBSP_QMP_MSGMEM_H

#include "qmp_face.h"

enum { MSGMEM_MAGIC = 0x514d4d4d };

struct QMP_msgmem_struct {
    uint32_t magic;
    int staged;  /* blocks not contiguous: packed and unpacked through a staging buffer */
    int nbytes;  /* total */
    int nblocks;
    struct {
        char *at;
        size_t len;
    } blocks[];
};

/* Copies the first n bytes of the blocks to `to`, one after the other /
 * back from `from`. */
void msgmem_pack(const struct QMP_msgmem_struct *m, char *to, size_t n);
void msgmem_unpack(const struct QMP_msgmem_struct *m, const char *from, size_t n);

#endif
