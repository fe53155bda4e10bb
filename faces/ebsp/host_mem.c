/*
 * Host-side memory and stream calls: ebsp_write/ebsp_read and making
 * streams. Written in C so host_bsp.h checks their prototypes; the work is
 * done by the Go exports.
 */
#include "../../capi/faces.h"

#include <host_bsp.h>
#include <stdint.h>

/* The address as a number for the engine (engine.Machine.HostAddress).
 * With 32-bit pointers a host address cast to off_t is often negative (the
 * top half of 4 GiB: stacks, libraries), so there it is taken as unsigned;
 * only the top 8 KiB, never user memory for a 32-bit process (Linux ends
 * its address space at 0xffffe000), stay small negative numbers. */
static long long address_value(off_t address)
{
#if UINTPTR_MAX == 0xffffffffu
    if (address < 0 && address >= -8192)
        return (long long)address;
    return (long long)(uintptr_t)address;
#else
    return (long long)address;
#endif
}


/* A host buffer that is a small number (not NULL, which the engine
 * reports itself) is reported here: 1 when it is one with bytes to copy. */
static int small_buffer(const char *call, const char *what, const void *buf, int size, int write)
{
    return buf && size > 0 && user_pointer_refused(-1, call, what, buf, (size_t)size, write);
}

/* The core-side address as a pointer for the engine, which uses it only
 * when it is no offset into local memory (the small numbers are). */
static void *address_pointer(off_t address)
{
    return user_pointer_for_go((const void *)(uintptr_t)address);
}

int ebsp_write(int pid, void *src, off_t dst, int size)
{
    if (small_buffer("ebsp_write", "the source", src, size, 0))
        return 0;
    return goHostCopy(pid, address_value(dst), address_pointer(dst), user_pointer_for_go(src), size, 1);
}

int ebsp_read(int pid, off_t src, void *dst, int size)
{
    if (small_buffer("ebsp_read", "the destination", dst, size, 1))
        return 0;
    return goHostCopy(pid, address_value(src), address_pointer(src), user_pointer_for_go(dst), size, 0);
}

/* A small initial_data pointer with stream_size 0 is read from no more
 * than a valid one is: it only tells the engine that there is data, of no
 * bytes (the lone header is then (token_size, 0), as on the board). */
static const char no_bytes[1];

void *bsp_stream_create(int stream_size, int token_size, const void *initial_data)
{
    if (small_buffer("bsp_stream_create", "the initial data", initial_data, stream_size, 0))
        return NULL;
    if (user_pointer_small(initial_data, 1) && initial_data)
        initial_data = no_bytes;
    return goStreamCreate(stream_size, token_size, (void *)(uintptr_t)initial_data);
}

/* void as in EBSP: the stream's number (or -1) stays inside the library. */
void ebsp_create_down_stream(const void *src, int dst_core_id, int nbytes, int chunksize)
{
    if (small_buffer("ebsp_create_down_stream", "the source data", src, nbytes, 0))
        return;
    /* nbytes <= 0 when src is small: nothing is read, as from NULL */
    (void)goCreateDownStream(user_pointer_for_go(src), dst_core_id, nbytes, chunksize);
}

void *ebsp_create_up_stream(int src_core_id, int nbytes, int chunksize)
{
    return goCreateUpStream(src_core_id, nbytes, chunksize);
}
