package engine

import (
	"fmt"
	"sync/atomic"
	"unsafe"
)

// Core is one emulated core's BSP state during a run. Its methods are
// called from that core's own thread, except the read-only accessors.
type Core struct {
	m          *Machine
	pid        int
	superstep  *atomic.Int32 // may live in C memory, read by the fault reporter
	pending    *atomic.Int32 // C memory: 1 when the next bsp_sync needs the engine (superstep.go), or nil
	begun      bool
	ended      bool
	comm       commState    // registrations, requests, queues (comm.go)
	tagMirror  *int32       // C copy of comm.tagsize, or nil (reqlog.go)
	modeMirror *int32       // C copy of directMode, or nil (direct.go)
	streams    *coreStreams // stream state of this run (stream_core.go)

	step       stepCounters                   // statistics of the current superstep (stats.go), when on
	received   [2]directReceived              // [superstep%2]: direct requests into this core, counted by their senders (stats.go)
	regsView   atomic.Pointer[[]registration] // comm.regs as other cores read it (at-once registrations)
	waitingReg atomic.Bool                    // waiting for another core's registration (remoteReg)
}

func newCore(m *Machine, pid int) *Core { return &Core{m: m, pid: pid, superstep: new(atomic.Int32)} }

// Mirror is where the C shim reads a core's engine state without calling
// into Go: fields of its C core table.
type Mirror struct {
	Superstep *atomic.Int32 // completed bsp_syncs (the crash reporter, the shim's empty syncs)
	Tagsize   *int32        // the tag size (the request log records bsp_send with it)
	Pending   *atomic.Int32 // 1 when the core's next bsp_sync needs the engine
	Queue     *QueueState   // the message queue's state (bsmp.go), or nil
	// DirectMode is what the shim may do on its own (direct.go), or nil
	DirectMode *int32
}

// Share makes the core keep the state in mirror up to date.
func (c *Core) Share(mirror Mirror) {
	mirror.Superstep.Store(c.superstep.Load())
	c.superstep = mirror.Superstep
	c.tagMirror = mirror.Tagsize
	c.mirrorTagsize()
	c.pending = mirror.Pending
	c.pending.Store(1)
	c.modeMirror = mirror.DirectMode
	c.publishDirectMode()
	if mirror.Queue != nil {
		c.comm.queue.share(mirror.Queue)
		mirror.Queue.WholeTag = 0
		if c.m.face.WholeTag {
			mirror.Queue.WholeTag = 1
		}
	}
}

func (c *Core) reset() {
	c.superstep.Store(0)
	c.begun = false
	c.ended = false
	c.streams = nil
	c.regsView.Store(nil)
	c.waitingReg.Store(false) // a stopped run may leave a core waiting
}

// Pid is the core's processor id.
func (c *Core) Pid() int { return c.pid }

// Superstep counts the bsp_sync calls completed in this run.
func (c *Core) Superstep() int { return int(c.superstep.Load()) }

// Begin is the core's bsp_begin.
func (c *Core) Begin() *Error {
	if refuse := c.m.face.RefuseCore; refuse != "" {
		return c.errorf("bsp_begin", "%s", refuse)
	}
	if c.begun {
		return c.errorf("bsp_begin", "called twice")
	}
	c.begun = true
	c.statsBegin()
	return nil
}

// End is the core's bsp_end; it reports whether the core must wait for the
// others (the final barrier of the run).
func (c *Core) End() (bool, *Error) {
	if refuse := c.m.face.RefuseCore; refuse != "" {
		return false, c.errorf("bsp_end", "%s", refuse)
	}
	if c.ended {
		return false, c.errorf("bsp_end", "called twice")
	}
	c.ended = true
	if c.m.stats.on {
		c.stepArrived()
		c.stepLeft()
	}
	return true, nil
}

// Error is a misuse detected on a core.
type Error struct {
	Pid       int
	Call      string
	What      string
	Superstep int
	// Soft: the board's own message (What, verbatim) was already printed
	// through the machine's output; the call does nothing and the run goes
	// on, as on the board.
	Soft bool
}

func (e *Error) Error() string {
	if e.Soft {
		return e.What
	}
	return fmt.Sprintf("BSP ERROR: %s: %s (superstep %d)", e.Call, e.What, e.Superstep)
}

// smallVariables is where the C shim puts the numbers below 4096 that a
// program names as variables (Go must not hold them as pointers): size
// bytes from base, each at its own offset. Reports show the number.
var smallVariables struct{ base, size uintptr }

// ShowSmallVariables says where the shim puts such numbers; once, before
// any core runs.
func ShowSmallVariables(base, size uintptr) {
	if base != 0 {
		smallVariables.base, smallVariables.size = base, size
	}
}

// shownAddress is a variable's address as the program named it.
func shownAddress(p unsafe.Pointer) uintptr {
	a := uintptr(p)
	if a-smallVariables.base < smallVariables.size {
		return a - smallVariables.base
	}
	return a
}

// fixedLocalFirst is the lowest fixed local address a kernel may name
// (the C shim's LOWEST_ADDRESS, emesh/lowmem/lowmem.h): below it a number is a
// small variable, not memory.
const fixedLocalFirst = 4096

// shownVariable is shownAddress for a variable of core c: one in its local
// memory shows as the board's local address, its offset there, which is
// what a kernel that named it by a fixed local address wrote (the shim
// hands the engine the host address of those bytes, capi/shim.h).
func (c *Core) shownVariable(p unsafe.Pointer) uintptr {
	if mem := c.m.memory.mem; mem != nil && c.pid < mem.Cores() {
		local := mem.Local(c.pid)
		if off := uintptr(p) - uintptr(local.Base()); off >= fixedLocalFirst && off < uintptr(local.Size()) {
			return off
		}
	}
	return shownAddress(p)
}

// boardNotice prints the line the board printed for this misuse ("$PP:
// text", in order with the core's other output) and returns the soft error
// that makes the call do nothing.
func (c *Core) boardNotice(call, format string, args ...any) *Error {
	e := &Error{Pid: c.pid, Call: call, What: fmt.Sprintf(format, args...), Superstep: c.Superstep(), Soft: true}
	c.m.print(c.pid, e.What)
	return e
}

func (c *Core) errorf(call, format string, args ...any) *Error {
	return &Error{Pid: c.pid, Call: call, What: fmt.Sprintf(format, args...), Superstep: c.reportStep()}
}

// Local tells whether the core runs in this process (the transport's
// answer; always, but in a world of several processes).
func (c *Core) Local() bool { return c.local(c.pid) }

// ReportStep is reportStep, for reports made outside the engine.
func (c *Core) ReportStep() int { return c.reportStep() }

// reportStep is the superstep to name in a report about this core: its
// own, or, for a core of another process (whose counter is not kept here),
// that of a core of this one (they are in the same sync).
func (c *Core) reportStep() int {
	if c.local(c.pid) {
		return c.Superstep()
	}
	for _, o := range c.m.cores {
		if c.local(o.pid) {
			return o.Superstep()
		}
	}
	return c.Superstep()
}
