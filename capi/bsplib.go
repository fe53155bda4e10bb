package main

// The BSPlib face's entries into Go (faces/bsplib's C calls them): an
// SPMD section's lifecycle is the face's (faces/bsplib/section.go), which
// these call with capi's Library (library.go); the core calls go to the
// engine.

/*
#include <stdlib.h>
#include "shim.h"
#include "../faces/bsplib/bsplib.h"
*/
import "C"

import "libebsp/faces/bsplib" // its C code (the BSPlib calls), its Face and its lifecycle

// goBsplibBegin starts a BSPlib section of nprocs cores (bsplib.Begin):
// its C core table, or NULL after printing why on stderr.
//
//export goBsplibBegin
func goBsplibBegin(nprocs C.longlong) *C.struct_ebsp_core {
	if !bsplib.Begin(&library{}, int(nprocs)) {
		return nil
	}
	return current.cores
}

// goBsplibFinish ends the section (bsplib.Finish); with release, its core
// table is freed.
//
//export goBsplibFinish
func goBsplibFinish(release C.int) { bsplib.Finish(&library{}, machine, release != 0) }

//export goBsplibCoreBegin
func goBsplibCoreBegin(pid C.int) {
	if c := coreOf(pid); c != nil {
		check(c.BeginStandard())
	}
}

//export goBsplibCoreEnd
func goBsplibCoreEnd(pid C.int) C.int {
	c := coreOf(pid)
	if c == nil {
		return 0
	}
	wait, err := c.EndStandard()
	check(err)
	return boolInt(wait)
}

// goBsplibMisuse reports a misuse found by faces/bsplib/bsplib.c on core pid and
// stops the run.
//
//export goBsplibMisuse
func goBsplibMisuse(pid C.int, call, what *C.char) {
	if c := coreOf(pid); c != nil {
		fail(c.Misuse(C.GoString(call), C.GoString(what)))
	}
}

// goBsplibReady makes the machine (and joins the MPI job under mpirun);
// 0 after printing why it cannot be made.
//
//export goBsplibReady
func goBsplibReady() C.int { return boolInt(hostMachine("bsp_init") != nil) }

// goBsplibAvailable is bsp_nprocs before bsp_begin (bsplib.Available).
//
//export goBsplibAvailable
func goBsplibAvailable() C.int { return C.int(bsplib.Available(&library{})) }

// goBsplibGlobalsCheck, at rank 0's first bsp_begin of an MPI job, warns
// of the program's globals that main set after bsp_init, which
// faces/bsplib's copy found (bsplib.CheckGlobals).
//
//export goBsplibGlobalsCheck
func goBsplibGlobalsCheck() {
	defer C.bl_globals_free()
	bsplib.CheckGlobals(&library{}, machine, int(C.ebsp_outer_section.nprocs), globalsChanged)
}

// globalsChanged are the ranges [from, to) of the program's globals that
// changed since bsp_init (faces/bsplib/globals.c), up to 64.
func globalsChanged() [][2]uint64 {
	const max = 64
	var from, to [max]C.uintptr_t
	ranges := make([][2]uint64, int(C.bl_globals_changed(&from[0], &to[0], max)))
	for i := range ranges {
		ranges[i] = [2]uint64{uint64(from[i]), uint64(to[i])}
	}
	return ranges
}
