package main

/*
#include "shim.h"
*/
import "C"

import (
	"strings"
	"unsafe"

	"libebsp/engine"
	_ "libebsp/faces/lqcd" // its C code: the LQCD API
)

// goLqcdPlace places the LQCD grid dims on the mesh (declareTopology, once
// per run): fills pidOf[rank] (C memory, nprocs ints) and returns 1, or
// writes the reason to errbuf and returns 0.
//
//export goLqcdPlace
func goLqcdPlace(dims *C.int, ndims C.int, nprocs C.int, pidOf *C.int, errbuf *C.char, errlen C.int) C.int {
	fail := func(text string) C.int {
		out := unsafe.Slice((*byte)(unsafe.Pointer(errbuf)), int(errlen))
		n := copy(out[:len(out)-1], text)
		out[n] = 0
		return 0
	}
	if machine == nil {
		return fail("no machine")
	}
	goDims := make([]int, int(ndims))
	for i, d := range unsafe.Slice((*C.int)(dims), int(ndims)) {
		goDims[i] = int(d)
	}
	mesh := machine.Mesh()
	placed, err := engine.LqcdPlacement(mesh.Rows, mesh.Cols, int(nprocs), goDims)
	if err != nil {
		return fail(err.Error())
	}
	out := unsafe.Slice((*C.int)(pidOf), int(nprocs))
	for r, p := range placed {
		out[r] = C.int(p)
	}
	return 1
}

// goLqcdAbort reports a fatal misuse of the LQCD API on core pid (cores in
// different collectives) and stops the run as a BSP ERROR does.
//
//export goLqcdAbort
func goLqcdAbort(pid C.int, text *C.char) {
	msg := C.GoString(text)
	coreLine(int(pid), msg)
	stopThenRecord(int(pid), "LQCD ERROR", msg)
}

// goLqcdDeadlock reports that every core of the run waits and none of the
// waits can end, some of them LQCD waits (faces/lqcd: a waiting core that
// found it so): where each core is, as other deadlocks are reported, then
// details, one line per LQCD wait ("  core NN in waitFor: ..."). The
// caller stops the run.
//
//export goLqcdDeadlock
func goLqcdDeadlock(details *C.char) {
	if machine == nil {
		return
	}
	place := func(pid int) (engine.Where, int) {
		return engine.Where(C.sched_where(C.int(pid))), machine.Core(pid).Superstep()
	}
	lines := machine.StallReportOf(engine.LqcdDeadlockHeader, place)
	if d := strings.TrimRight(C.GoString(details), "\n"); d != "" {
		lines = append(lines, strings.Split(d, "\n")...)
	}
	reportStall(lines, "deadlock")
}
