// Package bsplib is the standard BSPlib face (include/bsp.h): the SPMD
// sections of a BSPlib program on the emulated cores (bsplib.c: bsp_begin
// adopts the calling thread as pid 0, the calls check their arguments and
// reach the engine's C path) and MulticoreBSP for C's machine settings
// (mcbsp.c). Its Go half is its Face, the lifecycle of a section and of a
// nested one (section.go: what bsp_begin and bsp_end do, given capi's
// Library: the machine, the MPI job, the C core table) and the warning of
// globals main set after bsp_init (globals_warning.go). capi imports it so
// that its C code is linked into the library, and exports the Go entry
// points its C calls (capi/bsplib.go, capi/nested.go), which call these.
package bsplib

/*
#cgo CFLAGS: -I${SRCDIR}/../../include -std=gnu99 -O2 -Wall -Wextra -Wno-unused-parameter -ftls-model=initial-exec
*/
import "C"

import "libebsp/engine"

// Face is what a BSPlib section tells the engine (engine.Face): bsp.h's
// bsp_get_tag copies the whole tag; the reports speak of a program
// without a host; the EBSP face's calls are refused meanwhile.
var Face = engine.Face{
	RunName:             "BSPlib section %d",
	WholeTag:            true,
	Finished:            "returned from its SPMD function without bsp_end",
	RefuseHost:          "a BSPlib SPMD section (bsp.h) is running; " + engine.MixedFaces,
	RefuseCore:          "an EBSP call (host_bsp.h or e_bsp.h) in a BSPlib SPMD section (bsp.h); " + engine.MixedFaces,
	KernelName:          "BSPlib SPMD section",
	RegistrationsAtSync: true,
	ReportsToStderr:     true,
}
