/* The EBSP core calls, for calls.c (a file of its own: e_bsp.h and bsp.h
 * do not go together). */
#include <e_bsp.h>

void ebsp_put(int pid, const void *src, void *dst, int offset, int nbytes)
{
    bsp_put(pid, src, dst, offset, nbytes);
}

void ebsp_hpput(int pid, const void *src, void *dst, int offset, int nbytes)
{
    bsp_hpput(pid, src, dst, offset, nbytes);
}

void ebsp_send(int pid, const void *tag, const void *payload, int nbytes)
{
    bsp_send(pid, tag, payload, nbytes);
}
