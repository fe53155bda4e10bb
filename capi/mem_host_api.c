/*
 * Host-side memory and stream calls: ebsp_write/ebsp_read and making
 * streams. Written in C so host_bsp.h checks their prototypes; the work is
 * done by the Go exports.
 */
#include "shim.h"
#include "mem.h"

#include <host_bsp.h>
#include <stdint.h>

/* The address as a number for the engine (runtime.Machine.HostAddress).
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

int ebsp_write(int pid, void *src, off_t dst, int size)
{
    return goHostCopy(pid, address_value(dst), (void *)(uintptr_t)dst, src, size, 1);
}

int ebsp_read(int pid, off_t src, void *dst, int size)
{
    return goHostCopy(pid, address_value(src), (void *)(uintptr_t)src, dst, size, 0);
}

void *bsp_stream_create(int stream_size, int token_size, const void *initial_data)
{
    return goStreamCreate(stream_size, token_size, (void *)(uintptr_t)initial_data);
}

/* void as in EBSP: the stream's number (or -1) stays inside the library. */
void ebsp_create_down_stream(const void *src, int dst_core_id, int nbytes, int chunksize)
{
    (void)goCreateDownStream((void *)(uintptr_t)src, dst_core_id, nbytes, chunksize);
}

void *ebsp_create_up_stream(int src_core_id, int nbytes, int chunksize)
{
    return goCreateUpStream(src_core_id, nbytes, chunksize);
}
