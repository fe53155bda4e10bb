package main

// What capi gives the faces' lifecycles (faces/run.Library and the faces'
// own Library): the machine, the settings and the output, the C core
// tables and the MPI job. The faces decide what a section or a run does
// at its begin and end; capi carries it to C.

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
	"libebsp/faces/bsplib"
	"libebsp/faces/ebsp"
	"libebsp/faces/run"
)

// library is the Library of the outermost section's runs (nest nil), or
// of a BSPlib section nested in a core (nest its C section); table is the
// core table NewCores made.
type library struct {
	nest  *C.struct_ebsp_section
	table *C.struct_ebsp_core
}

// records are the statistics and trace of the program's runs.
var records run.Records

func (*library) Machine(call string) *engine.Machine { return hostMachine(call) }
func (*library) Complain(text string)                { complain(text) }
func (*library) ComplainErr(err error)               { complainErr(err) }
func (*library) Report(text string)                  { diagSay(text) }
func (*library) Configure(m *engine.Machine)         { configureRun(m) }
func (*library) Records() *run.Records               { return &records }
func (*library) RefuseMPI(call string)               { job.Refuse(call) }
func (*library) EndQuietly()                         { job.EndQuietly() }
func (*library) LeaveSection()                       { job.LeaveSection() }
func (*library) SetChecks(on bool)                   { C.bl_checks = boolInt(on) }

func (*library) JoinSection(m *engine.Machine, nprocs int) (int, error) {
	return job.JoinSection(m, nprocs)
}

func (*library) Job() (bsplib.Job, bool) {
	if job == nil {
		return bsplib.Job{}, false
	}
	return bsplib.Job{Ranks: job.Ranks(), Rank: job.Rank(), PerRank: job.PerRank(), Alone: job.Alone()}, true
}

func (*library) Stderr(text string) {
	cs := C.CString(text)
	C.out_stderr(cs)
	C.free(unsafe.Pointer(cs))
}

// LoadCores makes the EBSP host's core table (loadCores), each core
// sharing its engine state, its DMA engine and its local memory.
func (*library) LoadCores(m *engine.Machine, kernel engine.Kernel, n int) error {
	s, err := loadCores(kernel, n)
	if err != nil {
		return err
	}
	cores := unsafe.Slice(s.cores, n)
	for i := range cores {
		shareCore(m.Core(i), &cores[i])
		cores[i].dma_slot = m.Memory().DMA(i).Slot()
		local := m.Memory().Local(i)
		cores[i].local_base, cores[i].local_size = (*C.uchar)(local.Base()), C.size_t(local.Size())
	}
	current = s
	C.ebsp_outer_section.nprocs, C.ebsp_outer_section.cores = C.int(n), s.cores
	ensurePsFor(n)
	return nil
}

func (*library) UnloadCores(released ebsp.Released) {
	if released.Ext != nil {
		C.faults_released(released.Ext, C.size_t(released.ExtSize), released.Local, C.size_t(released.LocalSize))
	}
	new(library).FreeCores()
}

// FreeCores frees the outermost section's core table (and its kernels).
func (*library) FreeCores() {
	current.unload()
	C.ebsp_outer_section.nprocs, C.ebsp_outer_section.cores = 0, nil
}

// NewCores makes a BSPlib section's core table; a nested section's cores
// belong to its C section.
func (l *library) NewCores(m *engine.Machine, n int) error {
	l.table = C.cores_alloc(C.int(n))
	if l.table == nil {
		return fmt.Errorf("out of memory for %d cores", n)
	}
	cores := unsafe.Slice(l.table, n)
	for i := range cores {
		if l.nest != nil {
			cores[i].section = l.nest
		}
		shareCore(m.Core(i), &cores[i])
	}
	return nil
}

func (l *library) FreeNewCores() {
	C.cores_free(l.table)
	l.table = nil
}

// UseCores makes the outermost section's table the running one.
func (l *library) UseCores(n int) {
	current = session{cores: l.table}
	C.ebsp_outer_section.nprocs, C.ebsp_outer_section.cores = C.int(n), l.table
	ensurePsFor(n)
}
