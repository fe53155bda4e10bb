package runtime

import (
	"encoding/binary"
	"fmt"
	"sort"
)

// The exchange of one superstep, in the layers of ARCHITECTURE.md:
// requests are parsed when they are made (drma.go, bsmp.go: registration
// lookup, bounds) and packed at once into one block per destination core
// (pack); at bsp_sync the blocks are transmitted (transport) and every
// receiver unpacks the blocks for it in source pid order (unpack).
//
// bsp_sync runs these steps on every core, separated by barriers:
//
//	0  finish the superstep's requests; flag the superstep if it has any
//	   -- barrier --
//	1  no flag: the sync ends here (an empty bsp_sync costs one barrier).
//	   Else phase A: core 0 checks that registrations and tag sizes agree;
//	   every core serves its own gets, reading the sources into a buffer,
//	   so all gets see the values from before any put (the BSPlib rule).
//	   -- barrier --
//	2  phase B: every core writes its get results, applies the puts and
//	   queues the messages destined to it (by source pid, then issue
//	   order), and installs registrations and the tag size.
//	   -- barrier --
//	3  every core clears its outgoing blocks; the next superstep may
//	   reuse buffers and use bsp_hpput safely.

// Record kinds in a packed block.
const (
	recPut uint32 = 1 // a: registration slot, b: offset
	recMsg uint32 = 2 // a: tag bytes
)

// recHeader is the size of a record header: kind, two arguments, length.
const recHeader = 16

// outBlock is what a core packed for one destination in this superstep.
type outBlock struct {
	arena
	msgs     int // messages in the block
	msgBytes int // their tag and payload bytes
}

// transport moves the packed blocks of a superstep from their sources to
// their destinations. The only layer that knows where blocks live: an MPI
// transport would exchange them here and hand out received copies.
type transport interface {
	// block returns what src packed for dst (nil when nothing); valid
	// during phase B of the current sync.
	block(src, dst int) *outBlock
}

// sharedMemory is the in-process transport: a receiver reads the sender's
// block in place, so the only copy is the unpacking one.
type sharedMemory struct{ m *Machine }

func (s sharedMemory) block(src, dst int) *outBlock {
	out := s.m.cores[src].comm.out
	if out == nil {
		return nil
	}
	return out[dst]
}

// pad8 rounds n up to a multiple of 8 so record headers stay aligned.
func pad8(n int) int { return (n + 7) &^ 7 }

// pack reserves a record of kind with payload room n in the block for dst
// and returns the payload part.
func (c *Core) pack(call string, dst int, kind, a, b uint32, n int) ([]byte, *Error) {
	cs := &c.comm
	if cs.out == nil {
		cs.out = make([]*outBlock, len(c.m.cores))
	}
	blk := cs.out[dst]
	if blk == nil {
		blk = &outBlock{arena: arena{onHeap: true}}
		cs.out[dst] = blk
	}
	size := recHeader + pad8(n)
	if cs.outBytes+size > c.m.comm.limit {
		return nil, c.errorf(call, "communication memory exhausted: this core queued more than %d MiB in one superstep (raise %s)",
			c.m.comm.limit>>20, CommLimitEnv)
	}
	if err := blk.grow(size); err != nil {
		return nil, c.errorf(call, "%v", err)
	}
	cs.outBytes += size
	cs.active = true
	if c.m.stats.on {
		c.countSent(dst, n, kind == recMsg)
	}
	rec := blk.take(size)
	binary.LittleEndian.PutUint32(rec[0:], kind)
	binary.LittleEndian.PutUint32(rec[4:], a)
	binary.LittleEndian.PutUint32(rec[8:], b)
	binary.LittleEndian.PutUint32(rec[12:], uint32(n))
	return rec[recHeader : recHeader+n], nil
}

// unpack walks a block in the order it was packed.
func unpack(blk *outBlock, each func(kind, a, b uint32, data []byte)) {
	mem := blk.mem[:blk.used]
	for len(mem) > 0 {
		kind := binary.LittleEndian.Uint32(mem[0:])
		a := binary.LittleEndian.Uint32(mem[4:])
		b := binary.LittleEndian.Uint32(mem[8:])
		n := int(binary.LittleEndian.Uint32(mem[12:]))
		each(kind, a, b, mem[recHeader:recHeader+n])
		mem = mem[recHeader+pad8(n):]
	}
}

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
		c.stepLeft()
	}
	return next
}

func (c *Core) syncStep(step int) int {
	switch step {
	case 0:
		return c.syncFinishRequests()
	case 1:
		return c.syncPhaseA()
	case 2:
		c.syncPhaseB()
		if c.comm.err != nil {
			return 0
		}
		return 3
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

func (c *Core) syncFinishRequests() int {
	cs := &c.comm
	if cs.sentUp {
		return c.fail(c.errorf("ebsp_send_up", "called before bsp_sync; messages to the host may only be sent in the last superstep, after the final bsp_sync"))
	}
	if len(cs.pops) > 1 {
		sort.Ints(cs.pops)
	}
	if cs.active || cs.newTag >= 0 || len(cs.pushes) > 0 || len(cs.pops) > 0 {
		s := c.Superstep()
		c.m.comm.flags[s%2].Store(int32(s + 1))
	}
	return 1
}

func (c *Core) syncPhaseA() int {
	s := c.Superstep()
	if c.m.comm.flags[s%2].Load() != int32(s+1) {
		c.clearQueue()
		if c.m.comm.atOnce {
			c.forgetPopped() // no core serves a get or applies a put in this sync
		}
		c.superstep.Add(1)
		return 0
	}
	if c.pid == 0 {
		if err := c.m.checkAgreement(); err != nil {
			return c.fail(err)
		}
	}
	c.serveGets()
	if c.comm.err != nil {
		return 0
	}
	return 2
}

func (c *Core) syncPhaseB() {
	c.writeGetResults()
	c.clearQueue()
	c.receive()
	c.installRegistrations()
	if c.comm.newTag >= 0 {
		c.comm.tagsize = c.comm.newTag
		c.comm.newTag = -1
		c.mirrorTagsize()
	}
}

func (c *Core) syncDone() {
	cs := &c.comm
	for _, blk := range cs.out {
		if blk != nil {
			blk.reset()
			blk.msgs, blk.msgBytes = 0, 0
		}
	}
	cs.outBytes = 0
	cs.active = false
	c.superstep.Add(1)
}

// receive unpacks every source's block for this core, in pid order:
// puts are applied, messages copied into the inbox and queued.
func (c *Core) receive() {
	cs := &c.comm
	t := c.m.comm.transport
	total := 0
	for src := range c.m.cores {
		if blk := t.block(src, c.pid); blk != nil {
			total += blk.msgBytes
		}
	}
	if total > 0 {
		if err := cs.inbox.grow(total); err != nil {
			c.comm.err = c.errorf("bsp_sync", "%v", err)
			return
		}
	}
	for src := range c.m.cores {
		blk := t.block(src, c.pid)
		if blk == nil || blk.used == 0 {
			continue
		}
		unpack(blk, func(kind, a, b uint32, data []byte) {
			if c.m.stats.on {
				c.countRecv(len(data), kind == recMsg)
			}
			switch kind {
			case recPut:
				// The slot as the sender found it: popped in this
				// superstep still counts (at-once registrations).
				reg, _ := c.slot(int(a))
				copy(bytesAt(addAt(reg.addr, int(b)), len(data)), data)
			case recMsg:
				c.enqueue(int(a), data)
			}
		})
	}
}

// enqueue copies one message (tag then payload) into the inbox.
func (c *Core) enqueue(tagLen int, data []byte) {
	cs := &c.comm
	off := cs.inbox.used
	copy(cs.inbox.take(len(data)), data)
	cs.queue.push(message{
		tag:     cs.inbox.at(off),
		payload: cs.inbox.at(off + tagLen),
		tagLen:  tagLen,
		size:    len(data) - tagLen,
	})
}

func (c *Core) clearQueue() {
	c.comm.queue.clear()
	c.comm.inbox.reset()
}

// checkAgreement verifies, on core 0 during phase A, that every core
// registered, withdrew and set the tag size alike in this superstep.
func (m *Machine) checkAgreement() *Error {
	ref := &m.cores[0].comm
	for _, c := range m.cores[1:] {
		cs := &c.comm
		if len(cs.pushes) != len(ref.pushes) {
			return c.errorf("bsp_push_reg", "core %02d registered %d variable(s) in this superstep, core 00 registered %d; all cores must register the same variables in the same superstep",
				c.pid, len(cs.pushes), len(ref.pushes))
		}
		if what := popDifference(c.pid, cs.pops, ref.pops); what != "" {
			return c.errorf("bsp_pop_reg", "%s; all cores must withdraw the same registrations in the same superstep", what)
		}
		if cs.newTag != ref.newTag {
			return c.errorf("bsp_set_tagsize", "core %02d %s, core 00 %s in this superstep; all cores must set the same tag size",
				c.pid, describeTag(cs.newTag), describeTag(ref.newTag))
		}
	}
	return nil
}

// popDifference describes how the sorted pops of core pid differ from core 0's.
func popDifference(pid int, pops, ref []int) string {
	if len(pops) != len(ref) {
		return fmt.Sprintf("core %02d withdrew %d registration(s) in this superstep, core 00 withdrew %d", pid, len(pops), len(ref))
	}
	for i := range pops {
		if pops[i] != ref[i] {
			return fmt.Sprintf("core %02d withdrew registration #%d, core 00 withdrew #%d (registrations are numbered in the order they were made)", pid, pops[i], ref[i])
		}
	}
	return ""
}

func describeTag(newTag int) string {
	if newTag < 0 {
		return "did not set a tag size"
	}
	return fmt.Sprintf("set tag size %d", newTag)
}

// flagsReset forgets the superstep flags of a previous run.
func (mc *machineComm) flagsReset() {
	for i := range mc.flags {
		mc.flags[i].Store(0)
	}
}
