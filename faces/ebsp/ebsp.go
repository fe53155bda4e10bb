// Package ebsp is the C side of the EBSP face (include/host_bsp.h and
// the memory, DMA and stream calls of e_bsp.h): the host's calls that run
// the cores and serve their host syncs (host.c), its memory and stream
// calls (host_mem.c), and the cores' memory, DMA (mem.c) and stream calls
// (stream.c), each checking its pointers and waiting in the scheduler
// while the engine (through capi's exports) does the work. The core
// calls the EBSP and BSPlib faces share (bsp_put, bsp_sync...) are
// capi's. Its Go API is its Face, which capi gives the engine; capi
// imports it so that its C code is linked into the library.
package ebsp

/*
#cgo CFLAGS: -I${SRCDIR}/../../include -std=gnu99 -O2 -Wall -Wextra -Wno-unused-parameter -ftls-model=initial-exec
*/
import "C"

import "libebsp/engine"

// Face is what the EBSP face tells the engine of its runs (engine.Face):
// the EBSP host's calls and a kernel's are those of this face.
var Face = engine.Face{RunName: "ebsp_spmd run %d"}
