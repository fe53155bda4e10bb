// Package ebsp is the C side of the EBSP face (include/host_bsp.h and
// include/e_bsp.h): the host's calls that run the cores and serve their
// host syncs (host.c), its memory and stream calls (host_mem.c), the
// cores' identity, clocks, bsp_sync and output (core_api.c), their
// registrations, DRMA and messages (comm_api.c), the calls host and core
// share by name (dual_api.c), and the cores' memory, DMA (mem.c) and
// stream calls (stream.c), each checking its pointers and waiting in the
// scheduler while the engine (through capi's exports) does the work. The
// BSPlib face's calls do their work through the core calls here. Its C
// sees capi only through capi/faces.h. Its Go half is its Face, which
// capi gives the engine, the host's lifecycle (lifecycle.go: bsp_init,
// bsp_begin, ebsp_spmd's run, bsp_end, given capi's Library), the host's
// report of a stopped run (AbortReport) and what a core's stream call does
// (stream_ops.go); capi imports it so that its C code is linked into the
// library, and carries its C calls into Go (capi's exports).
package ebsp

/*
#cgo CFLAGS: -I${SRCDIR}/../../include -std=gnu99 -O2 -Wall -Wextra -Wno-unused-parameter -ftls-model=initial-exec
*/
import "C"

import "libebsp/engine"

// Face is what the EBSP face tells the engine of its runs (engine.Face):
// the EBSP host's calls and a kernel's are those of this face.
var Face = engine.Face{RunName: "ebsp_spmd run %d"}

// AbortReport is what the host prints of a run that stopped: for
// bsp_abort, the board's own line (EBSP_CHECKS=strict reports it as any
// other stop, with where each core was), else the engine's report.
func AbortReport(abort *engine.Abort, checks engine.CheckLevel) string {
	if abort.Reason == "bsp_abort" && checks != engine.CheckStrict {
		return "(BSP) ERROR: bsp_abort was called\n" // the board's line
	}
	return abort.Report()
}
