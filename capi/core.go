package main

/*
#include "shim.h"
*/
import "C"

import (
	"fmt"
	"strings"
	"sync/atomic"
	"time"
	"unsafe"

	"libebsp/engine"
	"libebsp/world/mpi"
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

// goWorldDiverged reports, on rank 0, ranks of an MPI world whose cores
// wait in different barriers, as a deadlock of one process is; every rank
// saw the same headers, so the others end quietly while rank 0 ends the
// job (endJob).
//
//export goWorldDiverged
func goWorldDiverged() {
	if mpiProc.Rank != 0 {
		endedElsewhere = true
		return
	}
	lines := machine.StallReportOf(engine.DeadlockHeader, func(pid int) (engine.Where, int) {
		r := pid / mpiProc.PerRank
		return engine.Where(mpi.KindOf(r)), mpi.StepOf(r)
	})
	reportStall(lines, "deadlock")
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
	if kind == C.STALL_TIMEOUT && mpiSection != nil {
		if mpiProc.Rank != 0 && sentPlaces(place) {
			return // rank 0 reported, and ends the job
		}
		place = jobPlaces(place)
	}
	reportStall(m.StallReportOf(header, place), reason)
}

// Each rank's watchdog fires when the job's cores make no progress: the
// other ranks send rank 0 where their cores are, so that it reports once
// for the job, as one process would; it waits placesWait for them. They
// wait reportGrace for it to end the job, then report alone (rank 0 may
// be stuck itself).
const (
	placesWait  = 2 * time.Second
	reportGrace = 10 * time.Second
)

// sentPlaces sends rank 0, from another rank, where its cores are, and
// waits reportGrace for rank 0 to end the job: true when it did (this
// rank then says nothing).
func sentPlaces(local func(pid int) (engine.Where, int)) bool {
	first, n := mpiSection.LocalRange()
	places := make([]int32, 0, 2*n)
	for pid := first; pid < first+n; pid++ {
		w, step := local(pid)
		places = append(places, int32(w), int32(step))
	}
	if mpiProc.SendPlaces(places) != nil {
		return false
	}
	for end := time.Now().Add(reportGrace); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if mpiProc.EndArrived() {
			endedElsewhere = true
			return true
		}
	}
	return false
}

// jobPlaces is where the cores of the job are, on rank 0: those of other
// ranks as they sent them (else "on other MPI ranks"); on another rank
// (rank 0 did not end the job) its own.
func jobPlaces(local func(pid int) (engine.Where, int)) func(pid int) (engine.Where, int) {
	if mpiProc.Rank != 0 {
		return local
	}
	sent := mpiProc.ReceivePlaces(placesWait)
	return func(pid int) (engine.Where, int) {
		r := pid / mpiProc.PerRank
		if i := 2 * (pid - r*mpiProc.PerRank); r != mpiProc.Rank && i+1 < len(sent[r]) {
			return engine.Where(sent[r][i]), int(sent[r][i+1])
		}
		return local(pid)
	}
}

// reportStall prints a stall report (its header first) and records it as
// the reason the run stops.
func reportStall(lines []string, reason string) {
	diagSay("ebsp: " + strings.Join(lines, "\nebsp: ") + "\n")
	machineHere().RecordAbort(-1, reason, lines[0])
}
