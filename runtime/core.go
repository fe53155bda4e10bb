package runtime

import (
	"fmt"
	"sync/atomic"
)

// Core is one emulated core's BSP state during a run. Its methods are
// called from that core's own thread, except the read-only accessors.
type Core struct {
	m         *Machine
	pid       int
	superstep atomic.Int32
	begun     bool
	ended     bool
	streams   map[int]*openStream // streams this core has open, by id
}

func newCore(m *Machine, pid int) *Core { return &Core{m: m, pid: pid} }

func (c *Core) reset() {
	c.superstep.Store(0)
	c.begun = false
	c.ended = false
	c.streams = nil
}

// Pid is the core's processor id.
func (c *Core) Pid() int { return c.pid }

// Superstep counts the bsp_sync calls completed in this run.
func (c *Core) Superstep() int { return int(c.superstep.Load()) }

// Begin is the core's bsp_begin.
func (c *Core) Begin() *Error {
	if c.begun {
		return c.errorf("bsp_begin", "called twice")
	}
	c.begun = true
	return nil
}

// End is the core's bsp_end; it reports whether the core must wait for the
// others (the final barrier of the run).
func (c *Core) End() (bool, *Error) {
	if c.ended {
		return false, c.errorf("bsp_end", "called twice")
	}
	c.ended = true
	return true, nil
}

// SyncStep runs step of bsp_sync on this core. It returns the next step:
// the caller waits at a barrier of all cores and calls SyncStep with it, or
// stops when it returns 0.
func (c *Core) SyncStep(step int) int {
	switch step {
	case 0:
		return 1
	default:
		c.superstep.Add(1)
		return 0
	}
}

// Error is a misuse detected on a core.
type Error struct {
	Pid       int
	Call      string
	What      string
	Superstep int
}

func (e *Error) Error() string {
	return fmt.Sprintf("BSP ERROR: %s: %s (superstep %d)", e.Call, e.What, e.Superstep)
}

func (c *Core) errorf(call, format string, args ...any) *Error {
	return &Error{Pid: c.pid, Call: call, What: fmt.Sprintf(format, args...), Superstep: c.Superstep()}
}
