/*
 * Zeroed memory on cache lines of its own (lqcd_declared.h), for the LQCD
 * and QMP faces' state that cores write to each other. A file of its own:
 * it calls nothing of the face, and the face's files all call it.
 */
#define _POSIX_C_SOURCE 200112L /* posix_memalign */

#include "lqcd_declared.h"

#include <stdlib.h>
#include <string.h>

void *lqcd_calloc_lines(size_t size)
{
    size_t n = (size + 63) & ~(size_t)63;
    void *p = NULL;
    if (n < size || posix_memalign(&p, 64, n) != 0)
        return NULL;
    memset(p, 0, n);
    return p;
}
