// Package ebsp is the C side of the EBSP face (include/host_bsp.h and
// the memory, DMA and stream calls of e_bsp.h): the host's calls that run
// the cores and serve their host syncs (host.c), its memory and stream
// calls (host_mem.c), and the cores' memory, DMA (mem.c) and stream calls
// (stream.c), each checking its pointers and waiting in the scheduler
// while the engine (through capi's exports) does the work. The core
// calls the EBSP and BSPlib faces share (bsp_put, bsp_sync...) are
// capi's. It has no Go API: capi imports it so that its C code is linked
// into the library.
package ebsp

/*
#cgo CFLAGS: -I${SRCDIR}/../../include -std=gnu99 -O2 -Wall -Wextra -Wno-unused-parameter -ftls-model=initial-exec
*/
import "C"
