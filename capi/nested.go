package main

// Nested BSPlib sections (MulticoreBSP's hierarchical SPMD,
// faces/bsplib/nested.c): a core of a running section calls bsp_init and
// bsp_begin(P) and becomes pid 0 of a section of its own. Each such
// section has a machine of its own (its registrations, supersteps,
// messages), with the outer machine's mesh; its C section (struct
// ebsp_section) holds the flags that machine writes and its core table.
// The Go calls of its cores find it through the calling thread's section
// (sections.go). What such a section does at its begin and end is the
// face's (faces/bsplib/section.go: BeginNested, EndNested).

/*
#include "shim.h"
*/
import "C"

import (
	"fmt"
	"strings"

	"libebsp/engine"
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

// nestBegin begins the section (bsplib.BeginNested) on a machine wired to
// sec, and registers that machine for its cores' calls (machineHere).
func nestBegin(n int, sec *C.struct_ebsp_section) (*C.struct_ebsp_core, error) {
	outer := machineHere()
	if outer == nil {
		return nil, fmt.Errorf("no machine")
	}
	lib := &library{nest: sec}
	m, err := bsplib.BeginNested(lib, n, func() *engine.Machine { return wiredMachine(outer.Mesh(), sec) })
	if err != nil {
		return nil, err
	}
	sec.id = C.int(nestIDs.Add(1))
	sec.nprocs, sec.cores = C.int(n), lib.table
	nests.Store(int(sec.id), m)
	nestsLive.Add(1)
	ensurePsFor(int(C.ebsp_outer_section.nprocs) + n)
	return lib.table, nil
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
	report := bsplib.EndNested(v.(*engine.Machine))
	nests.Delete(id)
	nestsLive.Add(-1)
	if report != "" {
		return C.CString(report)
	}
	return nil
}
