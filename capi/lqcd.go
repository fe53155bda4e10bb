package main

// The LQCD face's entries into Go (faces/lqcd's C calls them): each
// carries its C arguments to the face's Go half (faces/lqcd) or to the
// engine, and the answer back.

/*
#include "shim.h"
*/
import "C"

import (
	"unsafe"

	"libebsp/engine"
	"libebsp/faces/lqcd" // its C code (the LQCD API) and its Go half
)

// goLqcdPlace places the LQCD grid dims on the mesh (lqcd.Placement):
// fills pidOf[rank] (C memory, nprocs ints) and returns 1, or writes the
// reason to errbuf and returns 0.
//
//export goLqcdPlace
func goLqcdPlace(dims *C.int, ndims C.int, nprocs C.int, pidOf *C.int, errbuf *C.char, errlen C.int) C.int {
	goDims := make([]int, int(ndims))
	for i, d := range unsafe.Slice((*C.int)(dims), int(ndims)) {
		goDims[i] = int(d)
	}
	placed, err := lqcd.Placement(machine, goDims, int(nprocs))
	if err != nil {
		out := unsafe.Slice((*byte)(unsafe.Pointer(errbuf)), int(errlen))
		n := copy(out[:len(out)-1], err.Error())
		out[n] = 0
		return 0
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
	stopThenRecord(int(pid), lqcd.AbortReason, msg)
}

// goLqcdDeadlock reports that every core of the run waits and none of the
// waits can end, some of them LQCD waits (faces/lqcd: a waiting core that
// found it so; lqcd.DeadlockReport), details holding a line per LQCD wait.
// places is NULL in one process; across MPI ranks (on rank 0) it holds,
// for each of the n cores, the pair goLqcdPlaces gave on its rank
// (lqcd.SentPlace). The caller stops the run.
//
//export goLqcdDeadlock
func goLqcdDeadlock(details *C.char, places *C.int32_t, n C.int) {
	if machine == nil {
		return
	}
	place := localPlace
	if places != nil {
		place = lqcd.SentPlace(machine, unsafe.Slice((*int32)(unsafe.Pointer(places)), 2*int(n)))
	}
	reportStall(lqcd.DeadlockReport(machine, place, C.GoString(details)), "deadlock")
}

// localPlace is where core pid of this process is, and its superstep.
func localPlace(pid int) (engine.Where, int) {
	return engine.Where(C.sched_where(C.int(pid))), machine.Core(pid).Superstep()
}

// goLqcdPlaces writes, for the count cores from first (this rank's), the
// pair (where, superstep) of each into out (C memory, 2 * count), which a
// rank sends rank 0 for the report of a deadlock across ranks.
//
//export goLqcdPlaces
func goLqcdPlaces(first, count C.int, out *C.int32_t) {
	pairs := unsafe.Slice((*C.int32_t)(out), 2*int(count))
	for i := 0; i < int(count); i++ {
		w, step := localPlace(int(first) + i)
		pairs[2*i], pairs[2*i+1] = C.int32_t(w), C.int32_t(step)
	}
}
