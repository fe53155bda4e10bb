package main

// Nested BSPlib sections (MulticoreBSP's hierarchical SPMD,
// faces/bsplib/nested.c): a core of a running section calls bsp_init and
// bsp_begin(P) and becomes pid 0 of a section of its own. Each such
// section has a machine of its own (its registrations, supersteps,
// messages), with the outer machine's mesh; its C section (struct
// ebsp_section) holds the flags that machine writes and its core table.
// The Go calls of its cores find it through the calling thread's section
// (sections.go).

/*
#include "shim.h"
*/
import "C"

import (
	"fmt"
	"strings"
	"unsafe"

	"libebsp/engine"
	"libebsp/env"
	"libebsp/faces/bsplib"
)

// goBsplibNestBegin starts a nested section of nprocs cores for sec, on
// the machine of its own, with the run started: its core table (each
// core's section sec), or NULL with the reason in *why (C memory).
//
//export goBsplibNestBegin
func goBsplibNestBegin(nprocs C.longlong, sec *C.struct_ebsp_section, why **C.char) *C.struct_ebsp_core {
	table, err := nestBegin(int(nprocs), sec)
	if err != nil {
		*why = C.CString(strings.TrimPrefix(err.Error(), "bsp_begin: ")) // the face names the call
		return nil
	}
	return table
}

func nestBegin(n int, sec *C.struct_ebsp_section) (*C.struct_ebsp_core, error) {
	outer := machineHere()
	if outer == nil {
		return nil, fmt.Errorf("no machine")
	}
	if mpiProc != nil && !mpiAlone {
		return nil, fmt.Errorf("a nested SPMD section (bsp_init and bsp_begin inside a section) runs in one process only, not under mpirun")
	}
	memCfg, err := env.MemoryOf(cGetenv)
	if err != nil {
		return nil, err
	}
	m := engine.NewMachine(outer.Mesh())
	m.SetProbes(engine.Probes{
		Arrivals: func(pid int) int { return int(C.sched_arrivals(C.int(pid))) },
		Print:    coreLine,
	})
	m.ShareSyncFlags(flagsOf(sec))
	m.SetDirectDRMA(directDRMA{})
	m.SetMemoryConfig(memCfg)
	if err := m.BeginStandard(n, bsplib.Face); err != nil {
		return nil, err
	}
	table := C.cores_alloc(C.int(n))
	if table == nil {
		m.EndStandard()
		return nil, fmt.Errorf("out of memory for %d cores", n)
	}
	cores := unsafe.Slice(table, n)
	for i := range cores {
		cores[i].section = sec
		shareCore(m.Core(i), &cores[i])
	}
	configureRun(m)
	m.SetStats(false) // EBSP_STATS and EBSP_TRACE describe the outer section
	if err := m.StartRun(); err != nil {
		m.EndStandard()
		C.cores_free(table)
		return nil, err
	}
	sec.id = C.int(nestIDs.Add(1))
	sec.nprocs, sec.cores = C.int(n), table
	nests.Store(int(sec.id), m)
	nestsLive.Add(1)
	ensurePsFor(int(C.ebsp_outer_section.nprocs) + n)
	return table, nil
}

// goBsplibNestFinish ends the nested section sec once every core left it,
// and returns its stop report (C memory), or NULL when it ended well.
//
//export goBsplibNestFinish
func goBsplibNestFinish(sec *C.struct_ebsp_section) *C.char {
	id := int(sec.id)
	v, ok := nests.Load(id)
	if !ok {
		return nil
	}
	m := v.(*engine.Machine)
	abort := m.EndStandard()
	nests.Delete(id)
	nestsLive.Add(-1)
	if abort != nil {
		return C.CString(abort.Report())
	}
	return nil
}
