// Package run is the part of a run's lifecycle that every face shares:
// what a face's lifecycle needs of the library that carries its calls
// (Library, which capi gives: the machine, the settings, the output), the
// memory settings of a run, and its records at its end, the statistics
// (EBSP_STATS) and trace (EBSP_TRACE). The faces (faces/ebsp,
// faces/bsplib) run their runs through it; it calls into no C.
package run

import (
	"libebsp/engine"
	"libebsp/env"
)

// Library is what a face's lifecycle needs of the library it runs in.
type Library interface {
	// Machine is the library's machine, nil when there is none (the
	// first call that needs it says why; call names that call).
	Machine(call string) *engine.Machine
	// Getenv reads the program's environment as the C library sees it
	// (setenv calls the host made after loading the library included).
	Getenv(name string) string
	// Complain prints a host-side error: "ebsp: ERROR: text" on stderr.
	Complain(text string)
	// ComplainErr prints err as Complain does, a call made out of order
	// exactly as the board printed it (engine.BoardError).
	ComplainErr(err error)
	// Report prints a report about the run where the face that owns the
	// machine has them (engine.Face.ReportsToStderr).
	Report(text string)
	// Configure reads the settings of a run before its cores start, so
	// that a program may change them between runs (Records' included).
	Configure(m *engine.Machine)
	// Records are the statistics and trace of the program's runs.
	Records() *Records
}

// MachineForCores is the library's machine with the memory settings of
// its next cores (EBSP_LOCAL_MEM, EBSP_EXT_MEM, EBSP_DMA_SYNC), for call
// (bsp_begin) of either face; nil after saying why.
func MachineForCores(lib Library, call string) *engine.Machine {
	m := lib.Machine(call)
	if m == nil {
		return nil
	}
	cfg, err := env.MemoryOf(lib.Getenv)
	if err != nil {
		lib.Complain(call + ": " + err.Error())
		return nil
	}
	m.SetMemoryConfig(cfg)
	return m
}

// Finish ends a run of either face: its statistics and trace, and the
// abort that stopped it (nil when none).
func Finish(lib Library, m *engine.Machine) *engine.Abort {
	abort := m.FinishRun()
	r := lib.Records()
	if r.statsTo != "" && r.statsTo != "0" {
		r.reportStats(lib, m.Summary()) // on stderr in a BSPlib section (Library.Report)
	}
	if r.traceTo != "" {
		r.writeTrace(lib, m)
	}
	return abort
}
