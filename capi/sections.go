package main

// The sections whose cores call into Go: the outermost one, whose machine
// is the library's, and BSPlib sections nested in a core of another
// (nested.go), each with a machine of its own. A core's call finds its
// section's machine here.

/*
#include "shim.h"
*/
import "C"

import (
	"sync"
	"sync/atomic"
	"unsafe"

	"libebsp/emesh"
	"libebsp/engine"
)

// nests are the running nested sections' machines by the id of their C
// section; nestsLive counts them, so that a program without any finds its
// machine without asking C whose thread calls.
var (
	nests     sync.Map // int -> *engine.Machine
	nestsLive atomic.Int32
	nestIDs   atomic.Int32
)

// sectionHere is the C section of the calling thread's core.
func sectionHere() *C.struct_ebsp_section {
	if nestsLive.Load() == 0 {
		return &C.ebsp_outer_section
	}
	return C.section_here()
}

// machineHere is the machine of the calling thread's section: the
// library's machine, or a nested section's.
func machineHere() *engine.Machine {
	if nestsLive.Load() == 0 {
		return machine
	}
	id := int(C.section_here().id)
	if id == 0 {
		return machine
	}
	if m, ok := nests.Load(id); ok {
		return m.(*engine.Machine)
	}
	return machine
}

// flagsOf are the engine's flag words of a section (engine.Machine.ShareSyncFlags).
func flagsOf(sec *C.struct_ebsp_section) [5]*[2]atomic.Int32 {
	return [5]*[2]atomic.Int32{(*[2]atomic.Int32)(unsafe.Pointer(&sec.sync_flags[0])),
		(*[2]atomic.Int32)(unsafe.Pointer(&sec.put_flags[0])),
		(*[2]atomic.Int32)(unsafe.Pointer(&sec.get_flags[0])),
		(*[2]atomic.Int32)(unsafe.Pointer(&sec.gets_flags[0])),
		(*[2]atomic.Int32)(unsafe.Pointer(&sec.sends_flags[0]))}
}

// wiredMachine is a machine of mesh for the cores of section sec: the
// section's flags, the C path's probes and direct requests.
func wiredMachine(mesh emesh.Mesh, sec *C.struct_ebsp_section) *engine.Machine {
	m := engine.NewMachine(mesh)
	m.SetProbes(engine.Probes{
		Arrivals: func(pid int) int { return int(C.sched_arrivals(C.int(pid))) },
		Print:    coreLine,
	})
	m.ShareSyncFlags(flagsOf(sec))
	m.SetDirectDRMA(directDRMA{})
	return m
}
