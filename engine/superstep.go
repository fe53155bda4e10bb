package engine

import "sync/atomic"

// The superstep: what bsp_sync does. Requests are parsed when they are made
// (drma.go, bsmp.go: registration lookup, bounds) and packed at once into
// the transport's blocks (transport.go); bsp_sync delivers them. The engine
// owns the steps below; the caller runs them with a barrier of all cores
// between two steps (faces/ebsp/core_api.c's bsp_sync, in C because a core must
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
//	   if some core made such requests: the board's sync, a plan of steps
//	   (directPlan) that the C shim's loop runs without a call into Go.
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
//	   and use bsp_hpput safely. The sync is over (StepOver): the caller
//	   advances the superstep counter.
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
// the caller waits at a barrier of all cores and calls SyncStep with it;
// StepOver when the sync is complete, and the caller advances the
// superstep counter (the only place that does: the loop of
// faces/ebsp/core_api.c's bsp_sync, which also runs syncs without the engine);
// StepFailed after a misuse, which TakeError returns and which ends the
// run.
func (c *Core) SyncStep(step int) int {
	if c.m.stats.on && step == stepFinish {
		c.stepArrived()
	}
	next := c.syncStep(step)
	if next == StepOver {
		c.endSuperstep()
		if c.m.stats.on {
			c.countReceived()
			c.stepLeft()
		}
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
	stepGets          // 5: direct gets' destinations, when only direct requests were made
	stepCount         // the steps a plan indexes
)

// StepOver and StepFailed end the loop of the sync's steps (SyncStep).
const (
	StepOver   = -1
	StepFailed = -2
)

// firstLocalStep is the first step that touches memory of this process
// only (direct requests reach its cores only; the end empties its own
// blocks): the barrier before it and those after need no round with other
// processes (faces/ebsp/core_api.c).
const firstLocalStep = stepPuts

func (c *Core) syncStep(step int) int {
	switch step {
	case stepFinish:
		return c.syncFinishRequests()
	case stepPhaseA:
		return c.syncPhaseA()
	case stepPhaseB:
		c.syncPhaseB()
		if c.comm.err != nil {
			return StepFailed
		}
		if c.putsAfterGets() {
			return stepPuts
		}
		c.writeDirectPuts()
		return stepDone
	case stepGets, stepPuts:
		return c.planStep(step)
	default:
		return c.planStep(stepDone)
	}
}

// syncAction is what a core does in one step of a plan (directPlan).
type syncAction uint8

const (
	actNone syncAction = iota
	actReadGets
	actWriteGets
	actWritePuts
	actEnd // syncDone: nothing to do for a core the engine has no state of in this superstep
)

// planStep is one step of a plan: its action, then the step after it.
type planStep struct {
	action syncAction `c:"action"`
	next   int32      `c:"next"`
}

// The index of directPlan: whether some core made direct gets, direct
// puts in this superstep (their flags).
const (
	planGets = 1
	planPuts = 2
)

// directPlan[flags][step] is the plan of the steps from step on of a sync
// in which nobody communicated but by direct requests: the board's sync.
// Each core reads its direct gets' sources; -- barrier -- writes their
// destinations; -- barrier -- writes its direct puts; -- barrier -- and the
// sync is over, each step only if some core made such requests. Its
// stepPuts and stepDone are those of every sync. The C shim runs the same
// table (generated into capi/engine_defs.h) when its core needs nothing of
// the engine, with no call into Go.
var directPlan = func() (plan [4][stepCount]planStep) {
	for f := range plan {
		p := &plan[f]
		for s := range p {
			p[s] = planStep{actNone, StepFailed} // not a step of such a sync
		}
		afterGets := int32(stepDone)
		if f&planPuts != 0 {
			afterGets = stepPuts
		}
		switch {
		case f&planGets != 0:
			p[stepPhaseA] = planStep{actReadGets, stepGets}
		case f&planPuts != 0:
			p[stepPhaseA] = planStep{actWritePuts, stepDone}
		default:
			p[stepPhaseA] = planStep{actNone, StepOver} // an empty sync: one barrier
		}
		p[stepGets] = planStep{actWriteGets, afterGets}
		p[stepPuts] = planStep{actWritePuts, stepDone}
		p[stepDone] = planStep{actEnd, StepOver}
	}
	return plan
}()

// planIndex is the index of directPlan for this superstep.
func (c *Core) planIndex() int {
	f := 0
	if c.flagged(c.m.comm.directGets) {
		f |= planGets
	}
	if c.flagged(c.m.comm.directPuts) {
		f |= planPuts
	}
	return f
}

// planStep runs step of directPlan and returns the next.
func (c *Core) planStep(step int) int {
	p := directPlan[c.planIndex()][step]
	switch p.action {
	case actReadGets:
		c.readDirectGets()
	case actWriteGets:
		c.writeDirectGets()
	case actWritePuts:
		c.writeDirectPuts()
	case actEnd:
		c.syncDone()
	}
	return int(p.next)
}

// TakeError returns (and forgets) the misuse found by the last SyncStep.
func (c *Core) TakeError() *Error {
	err := c.comm.err
	c.comm.err = nil
	return err
}

func (c *Core) fail(err *Error) int {
	c.comm.err = err
	return StepFailed
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
		return StepFailed
	}
	if cs.active {
		t := c.m.comm.transport
		t.Post(laneRequests, c.pid)
		t.Post(laneData, c.pid)
	}
	return stepPhaseA
}

func (c *Core) syncPhaseA() int {
	if !c.flagged(c.m.comm.flags) {
		c.clearQueue()
		if c.m.comm.atOnce {
			c.forgetPopped() // no core serves a get or applies a put in this sync
		}
		return c.planStep(stepPhaseA)
	}
	c.deliver(laneRequests)
	c.readDirectGets()
	if c.pid == 0 {
		if err := c.checkAgreement(); err != nil {
			return c.fail(err)
		}
	}
	if c.comm.err != nil {
		return StepFailed
	}
	c.m.comm.transport.Post(laneReplies, c.pid)
	return stepPhaseB
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
}

// endSuperstep ends a completed bsp_sync on the engine's side (the
// caller then advances the counter, SyncStep).
func (c *Core) endSuperstep() {
	if n, _ := c.comm.queue.size(); n > 0 || c.m.stats.on {
		c.needSync() // the next sync drops these messages, or counts
	}
}
