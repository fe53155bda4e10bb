package main

// Glue of the BSPlib face (faces/bsplib, include/bsp.h): an SPMD section
// is one run of the machine in Standard mode, started and ended by the
// program's own thread, which is pid 0.

/*
#include <stdlib.h>
#include "shim.h"
#include "../faces/bsplib/bsplib.h"
*/
import "C"

import (
	"fmt"
	"unsafe"

	"libebsp/engine"
	"libebsp/env"
	"libebsp/faces/bsplib" // its C code (the BSPlib calls), its Face and its Go half
)

// goBsplibBegin starts a BSPlib section of nprocs cores: the machine in
// Standard mode and the C core table, with the run started. NULL after
// printing why on stderr.
//
//export goBsplibBegin
func goBsplibBegin(nprocs C.longlong) *C.struct_ebsp_core {
	m := hostMachine("bsp_begin")
	if m == nil {
		return nil
	}
	memCfg, err := env.MemoryOf(cGetenv)
	if err != nil {
		complain("bsp_begin: " + err.Error())
		return nil
	}
	m.SetMemoryConfig(memCfg)
	n, err := beginMPISection(m, int(nprocs))
	if err != nil {
		complainOnce(err.Error())
		return nil
	}
	nprocs = C.longlong(n)
	if err := m.BeginStandard(int(nprocs), bsplib.Face); err != nil {
		complainOnce(mpiBeginError(int(nprocs), err).Error())
		if mpiProc != nil && !mpiAlone && mpiProc.Rank != 0 {
			endQuietly() // every rank found it: rank 0 alone exits with status 1, which mpirun names
		}
		return nil
	}
	table := C.cores_alloc(C.int(nprocs))
	if table == nil {
		m.EndStandard()
		complain(fmt.Sprintf("bsp_begin: out of memory for %d cores", nprocs))
		return nil
	}
	cores := unsafe.Slice(table, int(nprocs))
	for i := range cores {
		shareCore(m.Core(i), &cores[i])
	}
	configureRun(m)
	C.bl_checks = C.int(boolInt(m.Checks() != engine.CheckOff))
	m.SetStats((statsTo != "" && statsTo != "0") || traceTo != "")
	if err := m.StartRun(); err != nil {
		m.EndStandard()
		C.cores_free(table)
		complain(err.Error())
		return nil
	}
	current = session{cores: table}
	C.ebsp_outer_section.nprocs, C.ebsp_outer_section.cores = C.int(nprocs), table
	ensurePsFor(int(nprocs))
	return table
}

// goBsplibFinish ends the section: the run's report (when it was
// stopped) on stderr, the machine back to the EBSP host's state, and with
// release, the core table freed.
//
//export goBsplibFinish
func goBsplibFinish(release C.int) {
	abort := finishRun()
	machine.EndStandard()
	endMPISection()
	if abort != nil {
		cs := C.CString(abort.Report())
		C.out_stderr(cs)
		C.free(unsafe.Pointer(cs))
	}
	if release != 0 {
		current.unload()
		C.ebsp_outer_section.nprocs, C.ebsp_outer_section.cores = 0, nil
	}
}

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

// goBsplibAvailable is bsp_nprocs before bsp_begin: the cores of the mesh
// (the EBSP host's bsp_nprocs is 0 before its bsp_init, as on the board).
//
//export goBsplibAvailable
func goBsplibAvailable() C.int {
	m := hostMachine("bsp_nprocs")
	if m == nil {
		return 0
	}
	if mpiAlone {
		return C.int(mpiProc.PerRank) // the other ranks ended with the first section
	}
	return C.int(m.Mesh().Cores())
}

// goBsplibGlobalsCheck, at rank 0's first bsp_begin of an MPI job, warns
// of the program's globals that main set after bsp_init (faces/bsplib's
// copy finds them, bsplib.GlobalsWarning names them). A warning under
// EBSP_CHECKS=strict only: textbook programs set P and n there for pid 0
// alone, rightly.
//
//export goBsplibGlobalsCheck
func goBsplibGlobalsCheck() {
	defer C.bl_globals_free()
	if mpiProc == nil || mpiAlone || mpiProc.Rank != 0 || int(C.ebsp_outer_section.nprocs) <= mpiProc.PerRank ||
		machine == nil || machine.Checks() != engine.CheckStrict {
		return
	}
	const max = 64
	var from, to [max]C.uintptr_t
	ranges := make([][2]uint64, int(C.bl_globals_changed(&from[0], &to[0], max)))
	for i := range ranges {
		ranges[i] = [2]uint64{uint64(from[i]), uint64(to[i])}
	}
	if text := bsplib.GlobalsWarning(ranges); text != "" {
		diagSay(text)
	}
}
