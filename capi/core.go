package main

/*
#include "shim.h"
*/
import "C"

import (
	"fmt"
	"strings"
	"sync/atomic"
	"unsafe"

	"libebsp/engine"
)

// coreOf returns the engine state of a core thread, or nil when the run is
// stopping (calls then do nothing until the core leaves its kernel).
func coreOf(pid C.int) *engine.Core {
	m := machineHere()
	if m == nil || m.Aborted() {
		return nil
	}
	return m.Core(int(pid))
}

// shareCore makes the engine keep the fields of a core's C table that the
// shim reads without calling into Go up to date (engine.Mirror).
func shareCore(c *engine.Core, table *C.struct_ebsp_core) {
	c.Share(engine.Mirror{
		Superstep:  (*atomic.Int32)(unsafe.Pointer(&table.superstep)),
		Tagsize:    (*int32)(unsafe.Pointer(&table.tagsize)),
		Pending:    (*atomic.Int32)(unsafe.Pointer(&table.sync_pending)),
		Queue:      (*engine.QueueState)(unsafe.Pointer(&table.queue)),
		DirectMode: (*int32)(unsafe.Pointer(&table.own.direct_mode)),
	})
}

// fail reports a misuse on a core and stops the run as bsp_abort does. A
// soft error (the board's own message, already printed) lets the run go on.
func fail(err *engine.Error) {
	if err.Soft {
		return
	}
	diagLine(err.Pid, err.Error())
	stopThenRecord(err.Pid, "BSP ERROR", err.Error())
}

// stopThenRecord stops the run, then records why. In this order: once the
// engine says the run is aborted, the other cores' calls do nothing
// (coreOf), and a bsp_sync that did nothing must find the run stopped,
// or its core would run on past it (seen once in misuse_board_silent: a
// core printed after two such syncs). The report is read once every core,
// this one included, has left.
func stopThenRecord(pid int, reason, message string) {
	C.sched_stop()
	if m := machineHere(); m != nil {
		m.RecordAbort(pid, reason, message)
	}
}

// warn reports a recoverable misuse on a core, printed as fail prints it;
// the run goes on and the call returns its failure value.
func warn(err *engine.Error) {
	diagLine(err.Pid, err.Error())
}

//export goCoreBegin
func goCoreBegin(pid C.int) C.int {
	c := coreOf(pid)
	if c == nil {
		return 0
	}
	if err := c.Begin(); err != nil {
		fail(err)
		return 0
	}
	return 1
}

//export goCoreEnd
func goCoreEnd(pid C.int) C.int {
	c := coreOf(pid)
	if c == nil {
		return 0
	}
	wait, err := c.End()
	if err != nil {
		fail(err)
		return 0
	}
	return boolInt(wait)
}

//export goSyncStep
func goSyncStep(pid C.int, step C.int) C.int {
	c := coreOf(pid)
	if c == nil {
		return C.STEP_FAILED
	}
	next := c.SyncStep(int(step))
	if err := c.TakeError(); err != nil {
		fail(err)
		return C.STEP_FAILED
	}
	return C.int(next)
}

// goCoreAbort stops the run for bsp_abort on core pid (stopThenRecord).
//
//export goCoreAbort
func goCoreAbort(pid C.int, msg *C.char) {
	text := "bsp_abort"
	if msg != nil {
		text = C.GoString(msg)
	}
	stopThenRecord(int(pid), "bsp_abort", text)
}

// goWorldReturned reports a core of an MPI rank other than 0 that returned
// from the SPMD function named in bsp_init without bsp_end (as a deadlock
// of one process is: the others wait for it in vain).
//
//export goWorldReturned
func goWorldReturned(pid C.int) {
	c := machine.Core(int(pid))
	lines := []string{engine.DeadlockHeader,
		fmt.Sprintf("  core %02d returned from its SPMD function without bsp_end (superstep %d)", pid, c.Superstep())}
	reportStall(lines, "deadlock")
}

//export goReportStall
func goReportStall(kind C.int) {
	header, reason := engine.DeadlockHeader, "deadlock"
	switch kind {
	case C.STALL_TIMEOUT:
		header, reason = fmt.Sprintf(engine.TimeoutHeader, float64(C.ebsp_watchdog_seconds)), "watchdog timeout"
	case C.STALL_NO_END:
		header = engine.NoEndHeader
	}
	m := machineHere()
	place := func(pid int) (engine.Where, int) {
		c := m.Core(pid)
		if !c.Local() {
			return engine.WhereElsewhere, c.ReportStep()
		}
		return engine.Where(C.sched_where(C.int(pid))), c.Superstep()
	}
	if kind == C.STALL_TIMEOUT {
		var report bool
		if place, report = job.TimeoutPlaces(place); !report {
			return // rank 0 reported, and ends the job
		}
	}
	reportStall(m.StallReportOf(header, place), reason)
}

// reportStall prints a stall report (its header first) and records it as
// the reason the run stops.
func reportStall(lines []string, reason string) {
	diagSay("ebsp: " + strings.Join(lines, "\nebsp: ") + "\n")
	machineHere().RecordAbort(-1, reason, lines[0])
}
