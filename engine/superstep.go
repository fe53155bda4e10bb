package engine

import "sync/atomic"

// The superstep: what bsp_sync does. Requests are parsed when they are made
// (drma.go, bsmp.go: registration lookup, bounds) and packed at once into
// the transport's blocks (transport.go); bsp_sync delivers them. The engine
// owns the steps below; the caller runs them with a barrier of all cores
// between two steps (capi/core_api.c's bsp_sync, in C because a core must
// not hold a Go frame across a barrier, see docs/design.md; the engine's
// tests drive the same loop from Go, driver_test.go):
//
//	0  finish the superstep's requests: check them, post the lanes
//	   -- barrier --
//	1  nobody communicated in this superstep (the sync flags): the sync ends
//	   here, an empty bsp_sync costs one barrier -- unless some core made
//	   direct requests (direct.go; they raise flags of their own): then
//	   each core reads its direct gets' sources, -- barrier -- writes
//	   their destinations (step 5), -- barrier -- writes its direct puts
//	   (step 3), -- barrier -- and the sync ends (step 4), each step only
//	   if some core made such requests: the board's sync, which the C
//	   shim's loop runs without a call into Go.
//	   Else phase A: core 0 checks that registrations and tag sizes agree;
//	   every core serves the get requests sent to it, reading the sources
//	   into replies, and reads its direct gets' sources, so every get sees
//	   the values from before any put.
//	   -- barrier --
//	2  phase B: every core writes its direct gets' destinations and its get
//	   replies, applies the puts and queues the messages sent to it (by
//	   source pid, then issue order), installs registrations and the tag
//	   size; then writes its own direct puts, unless step 3 must.
//	   -- barrier --
//	3  only when some core made direct puts and some core gets in this
//	   superstep: the direct puts are written here, once every get
//	   destination is written, so that a put wins over a get to the same
//	   bytes.
//	   -- barrier --
//	4  every core empties its blocks; the next superstep may reuse buffers
//	   and use bsp_hpput safely.
//
// The lanes of the transport, in the order a sync delivers them.
const (
	laneRequests Lane = iota // get requests: delivered in step 1
	laneReplies              // get replies: packed in step 1, delivered first in step 2
	laneData                 // puts and messages: delivered in step 2
)

// syncFlags tell whether anybody communicated in a superstep: flags[s%2]
// holds s+1 when some core did in superstep s (a fast core already in
// superstep s+1 writes the other entry). They may live in C memory, where
// the C shim's bsp_sync reads them to skip the engine in an empty sync.
type syncFlags = [2]atomic.Int32

// SyncStep runs step of bsp_sync on this core. It returns the next step:
// the caller waits at a barrier of all cores and calls SyncStep with it, or
// stops when it returns 0. After a misuse it returns 0 and TakeError
// returns the error, which ends the run.
func (c *Core) SyncStep(step int) int {
	if !c.m.stats.on {
		return c.syncStep(step)
	}
	if step == 0 {
		c.stepArrived()
	}
	next := c.syncStep(step)
	if next == 0 && c.comm.err == nil {
		c.countReceived()
		c.stepLeft()
	}
	return next
}

// The steps (see the top of this file), as SyncStep numbers them.
const (
	stepFinish = iota // 0
	stepPhaseA        // 1
	stepPhaseB        // 2
	stepPuts          // 3: direct puts after the get destinations
	stepDone          // 4
	stepGets          // direct gets' destinations, when only direct requests were made
)

// FirstLocalStep is the first step that touches memory of this process
// only (direct requests reach its cores only; the end empties its own
// blocks): the barrier before it and those after need no round with other
// processes (capi/core_api.c).
const FirstLocalStep = stepPuts

func (c *Core) syncStep(step int) int {
	switch step {
	case stepFinish:
		return c.syncFinishRequests()
	case stepPhaseA:
		return c.syncPhaseA()
	case stepPhaseB:
		c.syncPhaseB()
		if c.comm.err != nil {
			return 0
		}
		if c.putsAfterGets() {
			return stepPuts
		}
		c.writeDirectPuts()
		return stepDone
	case stepGets:
		c.writeDirectGets()
		if c.flagged(c.m.comm.directPuts) {
			return stepPuts
		}
		return stepDone
	case stepPuts:
		c.writeDirectPuts()
		return stepDone
	default:
		c.syncDone()
		return 0
	}
}

// TakeError returns (and forgets) the misuse found by the last SyncStep.
func (c *Core) TakeError() *Error {
	err := c.comm.err
	c.comm.err = nil
	return err
}

func (c *Core) fail(err *Error) int {
	c.comm.err = err
	return 0
}

// flag records in f that something happened in this superstep.
func (c *Core) flag(f *syncFlags) {
	s := c.Superstep()
	f[s%2].Store(int32(s + 1))
}

// flagged tells whether f says that something happened in this superstep.
func (c *Core) flagged(f *syncFlags) bool {
	s := c.Superstep()
	return f[s%2].Load() == int32(s+1)
}

// communicated records that this core made a request in this superstep:
// every core then takes the sync's steps. Once per superstep, so that the
// shared flag is not written by every request.
func (c *Core) communicated() {
	if c.comm.active {
		return
	}
	c.comm.active = true
	c.flag(c.m.comm.flags)
	c.needSync()
}

// needSync says that this core's next bsp_sync needs the engine even if
// nobody communicates (the C shim skips it otherwise).
func (c *Core) needSync() {
	if c.pending != nil {
		c.pending.Store(1)
	}
}

func (c *Core) syncFinishRequests() int {
	cs := &c.comm
	if c.pending != nil {
		c.pending.Store(0)
	}
	if cs.sentUp {
		return c.fail(c.errorf("ebsp_send_up", "called before bsp_sync; messages to the host may only be sent in the last superstep, after the final bsp_sync"))
	}
	c.sendRegSummary()
	c.sendRegMirror()
	c.takeWired()
	if cs.err != nil {
		return 0
	}
	if cs.active {
		t := c.m.comm.transport
		t.Post(laneRequests, c.pid)
		t.Post(laneData, c.pid)
	}
	return 1
}

func (c *Core) syncPhaseA() int {
	if !c.flagged(c.m.comm.flags) {
		c.clearQueue()
		if c.m.comm.atOnce {
			c.forgetPopped() // no core serves a get or applies a put in this sync
		}
		return c.syncDirectOnly()
	}
	c.deliver(laneRequests)
	c.readDirectGets()
	if c.pid == 0 {
		if err := c.checkAgreement(); err != nil {
			return c.fail(err)
		}
	}
	if c.comm.err != nil {
		return 0
	}
	c.m.comm.transport.Post(laneReplies, c.pid)
	return 2
}

// syncDirectOnly is step 1 when nobody needs the engine in this superstep:
// the direct requests' steps, if any, with the barriers of the shim's fast
// path (capi/core_api.c fast_sync_direct).
func (c *Core) syncDirectOnly() int {
	if c.flagged(c.m.comm.directGets) {
		c.readDirectGets()
		return stepGets
	}
	if c.flagged(c.m.comm.directPuts) {
		c.writeDirectPuts()
		return stepDone
	}
	c.endSuperstep()
	return 0
}

func (c *Core) syncPhaseB() {
	c.writeDirectGets() // every core has read (phase A)
	c.deliver(laneReplies)
	c.comm.gets, c.comm.lent = c.comm.gets[:0], c.comm.lent[:0]
	c.clearQueue()
	if err := c.growInbox(c.incoming(laneData, kindMessage)); err != nil {
		c.comm.err = err
		return
	}
	c.deliver(laneData)
	c.queueDirectMessages()
	c.installRegistrations()
	if c.comm.newTag >= 0 {
		c.comm.tagsize = c.comm.newTag
		c.comm.newTag = -1
		c.mirrorTagsize()
	}
}

func (c *Core) syncDone() {
	c.m.comm.transport.Reset(c.pid)
	c.comm.outBytes = 0
	c.comm.active = false
	c.endSuperstep()
}

// endSuperstep counts a completed bsp_sync (the C shim counts the syncs it
// completes without the engine itself, in the same counter).
func (c *Core) endSuperstep() {
	c.superstep.Add(1)
	if n, _ := c.comm.queue.size(); n > 0 || c.m.stats.on {
		c.needSync() // the next sync drops these messages, or counts
	}
}
