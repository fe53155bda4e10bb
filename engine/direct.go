package engine

import (
	"encoding/binary"
	"unsafe"
)

// Direct requests: bsp_put, bsp_get and bsp_send recorded by the C shim
// (capi/direct.c) and carried out without parsing or packing. A put or a
// get has its remote address resolved at the call (RemoteVariable,
// cached), as on the board, and each core carries out its own in the sync
// when the engine says so: every get reads its source after the first
// barrier, before any put is written; a get's destination is written after
// every core has read (it may be a registered variable another core gets
// from); a put is written after the get replies and direct gets that could
// write the same bytes (a put wins over a get). Direct puts and gets raise
// their own flags, not the sync flags: a superstep with nothing else needs
// no call into the engine (superstep.go, and bsp_sync's fast path in
// faces/ebsp/core_api.c). A message stays in its sender's log, where the engine
// queues it at the receiver in phase B (queueDirectMessages).

// DirectAnswer is BeginDirect's answer as the C shim takes it
// (goBeginDirect).
type DirectAnswer int

const (
	DirectRefused DirectAnswer = iota
	DirectAllowed
	// DirectCounted: allowed, and the shim counts each request for
	// statistics (CountsDirect), on the same path, so that statistics do
	// not change what a program computes (overlapping puts end alike).
	DirectCounted
)

// DirectKind is a kind of direct request.
type DirectKind int

const (
	DirectPut DirectKind = iota
	DirectGet
	DirectSend
	// DirectWire: puts to cores in other processes, packed by the shim as
	// the engine's own records (kindPut) in a block per destination, which
	// the engine takes over in step 0 of the sync (Wired): no call into Go
	// per put. Only in a world of several processes.
	DirectWire
)

// DirectDRMA is the C shim's side of direct requests: the first three carry
// out the calling core's own logged requests (they run on its thread).
type DirectDRMA interface {
	ReadGets(pid int)  // read the gets' sources
	WriteGets(pid int) // write the gets' destinations
	WritePuts(pid int) // write the puts
	// GetsWrite tells whether a direct get of core pid in this superstep
	// writes any of the n bytes at p, or pid made more than max (not
	// looked at); from another thread, while pid waits in a barrier.
	GetsWrite(pid int, p unsafe.Pointer, n, max int) bool
	// Wired visits the records core src packed for each destination in
	// this superstep (DirectWire) and forgets them; on src's thread.
	Wired(src int, visit func(dst int, records []byte))
	// WiredApart visits the puts core src made to other processes in this
	// superstep whose payload stays at its source until the sync ends
	// (large hpputs): each as its record's header and that payload; and
	// forgets them. On src's thread, after Wired.
	WiredApart(src int, visit func(dst int, header, payload []byte))
	// Tally visits what core pid's direct requests to or from each other
	// core amount to in this superstep, counted when BeginDirect said
	// CountsDirect, and forgets them; on pid's thread.
	Tally(pid int, visit func(peer int, t DirectTally))
	// Sent is where the messages core src sent to core dst in superstep
	// step are (a sequence of directMessage headers, each followed by the
	// tag and the payload, padded to 8), and how many bytes they take;
	// nil when none. They stay there until superstep step+2.
	Sent(src, dst, step int) (unsafe.Pointer, int)
}

// directState is superstep+1 of the last superstep in which the core was
// allowed direct requests of each kind.
type directState [4]int32

// SetDirectDRMA lets cores make direct requests (BeginDirect), carried
// out by d. Set once by the C shim.
func (m *Machine) SetDirectDRMA(d DirectDRMA) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.comm.direct = d
}

// DirectMode is what a core's C path may do on its own: a bit per kind
// of request it may carry out directly (1 << kind), and DirectModeCounted
// when it must count each one (statistics are on: the same path, lest
// statistics change what a program computes, as overlapping puts of
// different cores would). The engine decides it (directMode) and
// publishes it in the core's C table at the start of every run
// (Mirror.DirectMode), where the shim reads it; the shim never decides.
type DirectMode int32

// DirectModeCounted is DirectMode's bit for counted requests.
const DirectModeCounted DirectMode = 1 << 8

// directMode: direct requests of the kinds the transport lets a core make
// (directAllowed); none when the engine must see each request: strict
// checks are the careful mode.
func (c *Core) directMode() DirectMode {
	mc := &c.m.comm
	if mc.direct == nil || mc.checks == CheckStrict {
		return 0
	}
	var mode DirectMode
	for kind := DirectPut; kind <= DirectWire; kind++ {
		if c.directAllowed(kind) {
			mode |= 1 << kind
		}
	}
	if mode != 0 && c.m.stats.on {
		mode |= DirectModeCounted
	}
	return mode
}

// publishDirectMode writes the core's mode where the shim reads it (at
// the start of a run).
func (c *Core) publishDirectMode() {
	if c.modeMirror != nil {
		*c.modeMirror = int32(c.directMode())
	}
}

// BeginDirect is the first direct request of kind this core makes in this
// superstep, which its mode allows: the engine raises its flags and
// answers how many bytes the core may log (the communication limit). The
// answer repeats the mode (DirectRefused when it does not allow kind).
func (c *Core) BeginDirect(kind DirectKind) (budget int, answer DirectAnswer) {
	mode := c.directMode()
	if mode&(1<<kind) == 0 {
		return 0, DirectRefused
	}
	mc := &c.m.comm
	c.comm.direct[kind] = int32(c.Superstep() + 1)
	if kind == DirectSend {
		// the engine queues the messages at the receivers (phase B)
		c.flag(mc.directSends)
		c.communicated()
	} else if kind == DirectWire {
		c.communicated() // the transport carries them
	} else {
		c.flag(c.directFlags(kind))
	}
	if mode&DirectModeCounted != 0 {
		return mc.limit - c.comm.outBytes, DirectCounted
	}
	return mc.limit - c.comm.outBytes, DirectAllowed
}

// LocalMemory is implemented by a transport whose cores in this process
// share its memory (an MPI world's rank): a core may put to, get from and
// send to them directly (RemoteVariable answers for them only, the shim
// sends to the others as DirectWire records).
type LocalMemory interface{ LocalMemory() bool }

func (c *Core) directAllowed(kind DirectKind) bool {
	switch t := c.m.comm.transport.(type) {
	case *sharedMemory:
		return kind != DirectWire
	case LocalMemory:
		// the shim sends to other processes through DirectWire; no direct
		// gets: the cores of this process would write their destinations
		// before the replies from other processes, whatever the order of
		// issue (the engine's gets are numbered, writeRepliesInOrder)
		return kind != DirectGet && t.LocalMemory()
	}
	return false
}

// takeWired packs the records the shim packed for other processes in this
// superstep into the transport's blocks (step 0 of the sync).
func (c *Core) takeWired() {
	if !c.madeDirect(DirectWire) {
		return
	}
	ext, _ := c.m.comm.transport.(ExternalOut)
	c.m.comm.direct.Wired(c.pid, func(dst int, records []byte) {
		if c.comm.err != nil {
			return
		}
		c.comm.outBytes += len(records)
		if ext != nil {
			ext.OutExternal(laneData, c.pid, dst, records)
		} else if err := c.outBlock(laneData, dst).Append(records); err != nil {
			c.comm.err = c.errorf("bsp_sync", "%v", err)
		}
	})
	apart, _ := c.m.comm.transport.(ExternalApartOut)
	c.m.comm.direct.WiredApart(c.pid, func(dst int, header, payload []byte) {
		if c.comm.err != nil {
			return
		}
		if apart != nil {
			c.comm.outBytes += len(header) + len(payload)
			apart.OutApart(laneData, c.pid, dst, header, payload)
			return
		}
		slot, offset := binary.LittleEndian.Uint32(header[4:]), binary.LittleEndian.Uint32(header[8:])
		data, err := c.pack("bsp_hpput", laneData, dst, kindPut, slot, offset, len(payload))
		if err != nil {
			c.comm.err = err
			return
		}
		copy(data, payload)
	})
}

// ExternalApartOut is implemented by a transport that sends a record's
// payload from where its caller keeps it until the round ends, apart from
// its header (the shim's large hpputs): no copy at all.
type ExternalApartOut interface {
	OutApart(lane Lane, src, dst int, header, payload []byte)
}

// ExternalOut is implemented by a transport that sends records from
// memory its caller keeps until the next round (the shim's logs of
// DirectWire puts), after what the core packed in Out(lane, src, dst):
// a copy less than Append.
type ExternalOut interface {
	OutExternal(lane Lane, src, dst int, records []byte)
}

func (c *Core) directFlags(kind DirectKind) *syncFlags {
	if kind == DirectGet {
		return c.m.comm.directGets
	}
	return c.m.comm.directPuts
}

// DirectExhausted is the misuse of a core whose direct requests of kind
// went over the communication limit.
func (c *Core) DirectExhausted(kind DirectKind) *Error {
	switch kind {
	case DirectGet:
		return c.commExhausted("bsp_get")
	case DirectSend:
		return c.commExhausted("bsp_send")
	}
	return c.commExhausted("bsp_put")
}

// madeDirect tells whether this core was allowed direct requests of kind
// in this superstep (it may have logged some).
func (c *Core) madeDirect(kind DirectKind) bool {
	return c.comm.direct[kind] == int32(c.Superstep()+1)
}

// readDirectGets: after the first barrier, before any put is written.
func (c *Core) readDirectGets() {
	if c.madeDirect(DirectGet) {
		c.m.comm.direct.ReadGets(c.pid)
	}
}

// writeDirectGets: after every core read its gets' sources.
func (c *Core) writeDirectGets() {
	if c.madeDirect(DirectGet) {
		c.m.comm.direct.WriteGets(c.pid)
	}
}

// writeDirectPuts: after every get read its source, and after every get
// destination that a put could overwrite is written (putsAfterGets).
func (c *Core) writeDirectPuts() {
	if c.madeDirect(DirectPut) {
		c.m.comm.direct.WritePuts(c.pid)
	}
}

// putsAfterGets tells whether the direct puts of this superstep must wait
// for a step of their own in a sync that runs the engine's phases: a
// sender writes them itself, and must not overtake a get destination that
// its target writes in phase B.
func (c *Core) putsAfterGets() bool {
	return c.flagged(c.m.comm.directPuts) && (c.flagged(c.m.comm.gets) || c.flagged(c.m.comm.directGets))
}

// The entries of the C shim's direct logs (struct put_entry, get_entry
// and send_entry in capi/engine_defs.h, generated from these: cdefs.go),
// each followed by its bytes padded to 8. A put and a get have their
// remote address resolved at the call; a message is read in place by the
// engine (queueDirectMessages).
type (
	directPut struct {
		target unsafe.Pointer `c:"target"` // the byte the put starts at, in the target core's copy
		nbytes uintptr        `c:"nbytes"`
	}
	directGet struct {
		source unsafe.Pointer `c:"source"` // the byte the get starts at, in the source core's copy
		dst    unsafe.Pointer `c:"dst"`
		nbytes uintptr        `c:"nbytes"`
	}
	directMessage struct {
		tagLen int32 `c:"tag_len"`
		size   int32 `c:"size"`
	}
)

// queueDirectMessages queues the direct messages sent to this core in this
// superstep, by source pid, then issue order, where their senders keep
// them (phase B, after the packed ones).
func (c *Core) queueDirectMessages() {
	if !c.flagged(c.m.comm.directSends) {
		return
	}
	step := c.Superstep()
	for src := range c.m.cores {
		log, n := c.m.comm.direct.Sent(src, c.pid, step)
		if n == 0 {
			continue
		}
		if err := c.comm.queue.pushLog(log, n); err != nil {
			c.comm.err = c.errorf("bsp_sync", "%v", err)
			return
		}
	}
}

// directMessageHeader is the size of a direct message's header.
const directMessageHeader = unsafe.Sizeof(directMessage{})
