/*
 * The emulated hardware's fixed local addresses (lowmem.c): a kernel's
 * access to 0x1000 up to its local memory's size, as on the board, which
 * faulted here, carried out on the host buffer that holds the core's local
 * memory.
 */
#ifndef EBSP_LOWMEM_H
#define EBSP_LOWMEM_H

#include <stddef.h>

/* No memory is mapped below this address (Linux keeps at least the first
 * page free): a pointer below it is a small number, not an address, and
 * the fixed local addresses start here (the board kept its code below). */
enum { LOWEST_ADDRESS = 4096 };

/* Carries out the access that faulted at a fixed local address of the
 * core whose local memory is local_size bytes at local_base: returns 1
 * when it did (the core goes on after the instruction), 0 when the fault
 * is not such an access (local_base NULL: the core has none). siginfo and
 * uctx are the SIGSEGV handler's. */
int lowmem_emulate(unsigned char *local_base, size_t local_size, const void *siginfo, void *uctx);

#endif
