package engine

import (
	"encoding/binary"
	"fmt"
	"math"
	"unsafe"

	"libebsp/emesh"
)

// DRMA: bsp_put and bsp_get are buffered (packed now, carried out at the
// next bsp_sync); bsp_hpput, bsp_hpget and bsp_direct_get copy at once.
// In the at-once registration model each of them, and DirectAddress, may
// answer NotYet: the target may still push the registration it needs
// (remoteReg).

// Record kinds of the DRMA layer. A put travels in laneData: a is the
// target's registration slot, b the offset, the payload the bytes. A get is
// a request and a reply: the request (laneRequests; a: slot, b: offset,
// payload: the byte count and the get's number) is served by the owner of
// the variable in phase A, which sends the bytes back in laneReplies (a:
// the get's number); the requester writes them to the destination in phase
// B, before any put is applied.
const (
	kindPut Kind = 1 + iota
	kindGetRequest
	kindGetReply
)

// WireSlot is this core's registration slot of addr, for a put the shim
// packs itself (DirectWire); -1 when addr is not registered (the engine's
// path then reports the put).
func (c *Core) WireSlot(addr unsafe.Pointer) int {
	slot, ok := c.registeredSlot(addr)
	if !ok {
		return -1
	}
	return slot
}

// WireBound is how many bytes of core pid's copy of the registered
// variable addr a put the shim packs itself (DirectWire) may reach: the
// size core pid registered (all of them when sizes are not checked), 0
// when it has no such registration (the engine's path then reports it).
func (c *Core) WireBound(pid int, addr unsafe.Pointer) int {
	slot, ok := c.registeredSlot(addr)
	if !ok || pid < 0 || pid >= len(c.m.cores) {
		return 0
	}
	reg, ok, _ := c.remoteReg(pid, slot)
	if !ok {
		return 0
	}
	return c.checkedSize(reg)
}

func init() {
	registerKind(kindPut, (*Core).applyPut)
	registerKind(kindGetRequest, (*Core).serveGet)
	registerKind(kindGetReply, (*Core).completeGet)
}

// drmaState is a core's DRMA state.
type drmaState struct {
	gets    []pendingGet // this superstep's gets, by number
	getRuns []getRun     // by destination pid: the last get packed for it (joinGet)
	lent    []memRange   // sources of replies sent by reference (serveGet), until phase B
	// the replies of a sync: the last get written, whether one came after
	// a later get's (noteReplyOrder), and by get when they are written
	// again in order (writeRepliesInOrder)
	replyLast        int
	repliesUnordered bool
	replyData        [][]byte
	found            []foundSlot // by pid: the last slot found there (bufferedTarget)
	direct           directState // direct.go
	// by [write][slot]: the pages of this core's copy of the variable in
	// that slot found readable (writable) in a superstep (variableGood)
	goodPages [2][]goodPages
}

// goodPages are the pages [lo, hi) found good in superstep step-1.
type goodPages struct {
	step   int32
	lo, hi uintptr
}

// foundSlot says that a core's slot-1 was found filled in superstep step-1.
type foundSlot struct{ slot, step int32 }

// pendingGet is a bsp_get waiting for its reply.
type pendingGet struct {
	dst    unsafe.Pointer
	nbytes int
}

// getRequestSize is the payload of a get request: byte count, get number.
const getRequestSize = 8

// target parses a DRMA request to or from the registered variable addr of
// core pid: it returns that core's copy of the variable.
func (c *Core) target(call string, pid int, addr unsafe.Pointer, offset, nbytes int) (int, registration, *Error) {
	slot, err := c.parseTarget(call, pid, addr, offset, nbytes)
	if err != nil {
		return 0, registration{}, err
	}
	reg, err := c.remoteTarget(call, pid, addr, slot, offset, nbytes)
	return slot, reg, err
}

// bufferedTarget is target for bsp_put and bsp_get, which need only the
// slot: the receiver resolves it at the sync. In the at-once model, once a
// superstep found core pid's slot filled, it stays found until the sync (a
// pop leaves it visible for the rest of the superstep), and sizes are not
// checked, so the answer is remembered per destination: at 16 cores the
// lookups in other cores' tables were an eighth of a put's cost.
func (c *Core) bufferedTarget(call string, pid int, addr unsafe.Pointer, offset, nbytes int) (int, *Error) {
	slot, err := c.parseTarget(call, pid, addr, offset, nbytes)
	if err != nil {
		return 0, err
	}
	if !c.m.comm.atOnce {
		_, err := c.remoteTarget(call, pid, addr, slot, offset, nbytes)
		return slot, err
	}
	found := c.comm.found
	if found == nil {
		found = make([]foundSlot, len(c.m.cores))
		c.comm.found = found
	}
	// slot+1 and superstep+1, so that the zero value finds nothing
	want := foundSlot{slot: int32(slot + 1), step: int32(c.Superstep() + 1)}
	if found[pid] == want {
		return slot, nil
	}
	if _, err := c.remoteTarget(call, pid, addr, slot, offset, nbytes); err != nil {
		return 0, err
	}
	found[pid] = want
	return slot, nil
}

// parseTarget checks a request's arguments and finds this core's slot of addr.
func (c *Core) parseTarget(call string, pid int, addr unsafe.Pointer, offset, nbytes int) (int, *Error) {
	if pid < 0 || pid >= len(c.m.cores) {
		return 0, c.errorf(call, "core %d does not exist (this run has cores 0..%d)", pid, len(c.m.cores)-1)
	}
	if nbytes < 0 {
		return 0, c.errorf(call, "negative size %d (core %02d)", nbytes, pid)
	}
	if offset < 0 {
		return 0, c.errorf(call, "negative offset %d (core %02d)", offset, pid)
	}
	slot, ok := c.registeredSlot(addr)
	if !ok {
		return 0, c.unknownVariable(call, addr, pid, offset, nbytes)
	}
	return slot, nil
}

// remoteTarget is core pid's registration in slot, checked for the
// request; NotYet while pid may still fill the slot (remoteReg).
func (c *Core) remoteTarget(call string, pid int, addr unsafe.Pointer, slot, offset, nbytes int) (registration, *Error) {
	reg, ok, later := c.remoteReg(pid, slot)
	if later {
		return registration{}, NotYet
	}
	if !ok {
		return registration{}, c.errorf(call, "core %02d has no variable in registration slot %d, where this core has 0x%x: "+
			"it had not registered it by its next synchronisation, or popped it", pid, slot, c.shownVariable(addr))
	}
	if !c.m.comm.unchecked && offset+nbytes > c.checkedSize(reg) {
		return registration{}, c.errorf(call, "%d bytes at offset %d exceed the %d bytes core %02d registered", nbytes, offset, reg.size, pid)
	}
	return reg, nil
}

// unknownVariable reports a request naming an address this core has not
// registered: the board printed a line and ignored the call.
func (c *Core) unknownVariable(call string, addr unsafe.Pointer, pid, offset, nbytes int) *Error {
	if c.m.comm.atOnce {
		return c.boardNotice(call, "BSP ERROR: could not find bsp var 0x%x", c.shownVariable(addr))
	}
	return c.errorf(call, "the address is not a registered variable (core %02d, %d bytes at offset %d)", pid, nbytes, offset)
}

// checkBuffer checks the nbytes at p, argument what of call, that the
// engine is about to read (or, with write, write). At every check level,
// as a bad pointer would otherwise fault inside Go code: "the source is
// NULL but nbytes is 16", "cannot read 16 bytes of the source at 0x10: no
// readable memory there".
func (c *Core) checkBuffer(call, what string, p unsafe.Pointer, nbytes int, write bool) *Error {
	if bad := emesh.CheckUser(p, nbytes, write); bad != nil {
		return c.errorf(call, "%s", bad.Describe(what))
	}
	return nil
}

// Put is bsp_put: src is copied now and written at the next sync.
func (c *Core) Put(pid int, src, dst unsafe.Pointer, offset, nbytes int) *Error {
	return c.put("bsp_put", pid, src, dst, offset, nbytes, true)
}

// put is Put (or bsp_hpput to another process: call); checkSource is
// false for a source in the request log, the library's own copy.
func (c *Core) put(call string, pid int, src, dst unsafe.Pointer, offset, nbytes int, checkSource bool) *Error {
	slot, err := c.bufferedTarget(call, pid, dst, offset, nbytes)
	if err == nil && checkSource {
		err = c.checkBuffer(call, "the source", src, nbytes, false)
	}
	if err != nil {
		return err
	}
	data, err := c.pack(call, laneData, pid, kindPut, uint32(slot), uint32(offset), nbytes)
	if err != nil {
		return err
	}
	copy(data, bytesAt(src, nbytes))
	if c.m.stats.on {
		c.countSent(pid, 1, nbytes, false)
	}
	return nil
}

// local tells whether core pid runs in this process (Transport.Local):
// its registrations can be read and its memory written at the call.
func (c *Core) local(pid int) bool {
	t := c.m.comm.transport
	return t == nil || t.Local(pid)
}

// checkIncoming checks a request that core src, in another process, made
// for nbytes at offset of this core's registration slot: src could not
// see this core's table at the call, so the check the sender makes within
// a process (remoteTarget) is made here. ok is false after a misuse.
func (c *Core) checkIncoming(call string, src, slot, offset, nbytes int) (registration, bool) {
	reg, ok := c.slot(slot)
	if !ok {
		c.comm.err = c.errorf(call, "core %02d has no variable in registration slot %d, where core %02d has one: "+
			"it had not registered it by its next synchronisation, or popped it", c.pid, slot, src)
		return registration{}, false
	}
	if !c.m.comm.unchecked && offset+nbytes > c.checkedSize(reg) {
		c.comm.err = c.errorf(call, "%d bytes at offset %d exceed the %d bytes core %02d registered (a request of core %02d)",
			nbytes, offset, reg.size, c.pid, src)
		return registration{}, false
	}
	return reg, true
}

// incomingSlot is the registration a request of core src names: as the
// sender found it (popped in this superstep still counts), or checked here
// when the sender is in another process.
func (c *Core) incomingSlot(call string, src, slot, offset, nbytes int) (registration, bool) {
	if c.local(src) {
		reg, _ := c.slot(slot)
		return reg, true
	}
	return c.checkIncoming(call, src, slot, offset, nbytes)
}

// badVariable describes bad memory in core owner's copy of a registered
// variable, which starts at base, with the addresses the program named:
// "cannot write 16 bytes to core 01's copy of the registered variable at
// 0x10: no writable memory there".
func (c *Core) badVariable(bad *emesh.BadMemory, owner int, base unsafe.Pointer) string {
	shown := bad
	if owner >= 0 && owner < len(c.m.cores) {
		shift := uintptr(base) - c.m.cores[owner].shownVariable(base)
		shown = &emesh.BadMemory{P: bad.P - shift, At: bad.At - shift, N: bad.N, Write: bad.Write}
	}
	return shown.Describe(fmt.Sprintf("core %02d's copy of the registered variable", owner))
}

// checkVariable checks the nbytes at offset of core owner's copy of a
// registered variable (at base) before the engine reads (write: writes)
// them at a call: a registration may name any address (a number, memory
// since unmapped), and a fault inside Go code cannot be reported.
func (c *Core) checkVariable(call string, owner int, base unsafe.Pointer, offset, nbytes int, write bool) *Error {
	if bad := emesh.CheckUser(addAt(base, offset), nbytes, write); bad != nil {
		return c.errorf(call, "%s", c.badVariable(bad, owner, base))
	}
	return nil
}

// variableGood tells whether the n bytes at offset of this core's copy of
// the variable in slot, which starts at base, can be read (write: written), for a request of
// core src that a sync carries out; if not, the request's call is
// reported (c.comm.err). It returns the pages found good, which include
// them: the pages a core's copies are found good in are remembered per
// slot for the superstep, so that a loop of requests into one variable
// looks at each page once.
//
//go:noinline
func (c *Core) variableGood(call string, src, slot int, base unsafe.Pointer, offset, n int, write bool) (lo, hi uintptr, ok bool) {
	at := addAt(base, offset)
	w := 0
	if write {
		w = 1
	}
	step := int32(c.Superstep() + 1)
	a, end := uintptr(at), uintptr(at)+uintptr(n)
	var g *goodPages
	if slot >= 0 {
		pages := &c.comm.goodPages[w]
		if slot >= len(*pages) {
			*pages = append(*pages, make([]goodPages, slot+1-len(*pages))...)
		}
		g = &(*pages)[slot]
		if g.step == step && a >= g.lo && end <= g.hi && end >= a {
			return g.lo, g.hi, true
		}
	}
	if bad := emesh.CheckUser(at, n, write); bad != nil {
		c.comm.err = c.errorf(call, "%s (a request of core %02d)", c.badVariable(bad, c.pid, base), src)
		return 0, 0, false
	}
	const page = 4096
	lo, hi = a&^(page-1), ((end-1)|(page-1))+1
	if hi < lo {
		hi = lo // the top page: found again at each request
	}
	if g != nil {
		if g.step == step && lo <= g.hi && hi >= g.lo {
			lo, hi = min(lo, g.lo), max(hi, g.hi)
		}
		*g = goodPages{step: step, lo: lo, hi: hi}
	}
	return lo, hi, true
}

// applyPut lists a put for this core's copy of the variable; the writer
// writes it at the end of the delivery (putwrite.go).
func (c *Core) applyPut(src int, r record) {
	reg, ok := c.incomingSlot("bsp_put", src, int(r.a), int(r.b), len(r.data))
	if !ok {
		return
	}
	if _, _, ok := c.variableGood("bsp_put", src, int(r.a), reg.addr, int(r.b), len(r.data), true); !ok {
		return
	}
	c.comm.writes.room(1)
	c.listPut(reg.addr, int(r.b), r.data)
	if c.m.stats.on {
		c.countRecv(1, len(r.data), false)
	}
}

// applyPuts is applyPut for each record of a block of puts, the common
// case of a data block, without a call per record: at 16 cores the calls
// were a fifth of a put's cost in the engine.
func (c *Core) applyPuts(src int, b *Block) {
	slots := c.incomingSlots(src)
	c.comm.writes.room(b.count[kindPut])
	mem := b.mem[:b.used]
	for len(mem) > 0 {
		slot := int(binary.LittleEndian.Uint32(mem[4:]))
		offset := int(binary.LittleEndian.Uint32(mem[8:]))
		n := int(binary.LittleEndian.Uint32(mem[12:]))
		data := mem[recHeader : recHeader+n]
		mem = mem[recordSize(n):]
		addr, ok := slots.find(slot, offset, n)
		if !ok {
			c.checkIncoming("bsp_put", src, slot, offset, n) // reports it
			return
		}
		if at := uintptr(addr) + uintptr(offset); at < slots.goodLo || at+uintptr(n) > slots.goodHi || at+uintptr(n) < at {
			if !slots.good("bsp_put", src, slot, offset, n, true) {
				return
			}
		}
		c.listPut(addr, offset, data)
	}
}

// HPPut is bsp_hpput: written into the target's variable at once.
func (c *Core) HPPut(pid int, src, dst unsafe.Pointer, offset, nbytes int) *Error {
	if !c.local(pid) {
		return c.put("bsp_hpput", pid, src, dst, offset, nbytes, true) // completes at the sync, as BSPlib allows
	}
	_, reg, err := c.target("bsp_hpput", pid, dst, offset, nbytes)
	if err == nil {
		err = c.checkBuffer("bsp_hpput", "the source", src, nbytes, false)
	}
	if err == nil {
		err = c.checkVariable("bsp_hpput", pid, reg.addr, offset, nbytes, true)
	}
	if err != nil {
		return err
	}
	c.comm.writes.room(1)
	c.listPut(reg.addr, offset, bytesAt(src, nbytes))
	c.writeListed()
	return nil
}

// Get is bsp_get: the source is read during the next sync, before any
// put of this superstep is applied.
func (c *Core) Get(pid int, src unsafe.Pointer, offset int, dst unsafe.Pointer, nbytes int) *Error {
	return c.get("bsp_get", pid, src, offset, dst, nbytes, true)
}

// get is Get (or bsp_hpget from another process: call);
// checkDestination is false for a get from the request log, whose
// destination the shim checked when it logged it (reqlog_get).
func (c *Core) get(call string, pid int, src unsafe.Pointer, offset int, dst unsafe.Pointer, nbytes int, checkDestination bool) *Error {
	slot, err := c.bufferedTarget(call, pid, src, offset, nbytes)
	if err == nil && checkDestination {
		err = c.checkBuffer(call, "the destination", dst, nbytes, true)
	}
	if err != nil {
		return err
	}
	cs := &c.comm
	if cs.outBytes+nbytes > c.m.comm.limit {
		return c.errorf(call, "communication memory exhausted: this core requested more than %d MiB in one superstep (raise %s)",
			c.m.comm.limit>>20, CommLimitEnv)
	}
	if c.joinGet(pid, slot, offset, dst, nbytes) {
		return nil
	}
	blk := c.outBlock(laneRequests, pid)
	req, err := c.pack(call, laneRequests, pid, kindGetRequest, uint32(slot), uint32(offset), getRequestSize)
	if err != nil {
		return err
	}
	binary.LittleEndian.PutUint32(req[0:], uint32(nbytes))
	binary.LittleEndian.PutUint32(req[4:], uint32(len(cs.gets)))
	cs.outBytes += nbytes // the reply
	if len(cs.gets) == 0 {
		c.flag(c.m.comm.gets)
	}
	if !c.m.stats.on {
		c.getRunAt(pid, getRun{step: c.Superstep() + 1, slot: slot, next: offset + nbytes,
			dst: uintptr(dst) + uintptr(nbytes), end: blk.used, num: len(cs.gets)})
	}
	cs.gets = append(cs.gets, pendingGet{dst: dst, nbytes: nbytes})
	if c.m.stats.on {
		c.countGot(pid, 1, nbytes)
	}
	return nil
}

// getRun is the last get a core packed for a destination core in a
// superstep: a get of the bytes right after its source, into the bytes
// right after its destination, joins it (joinGet).
type getRun struct {
	step     int     // superstep+1: valid in that superstep only
	slot     int     // the variable's slot
	next     int     // the offset after its bytes
	dst      uintptr // the destination after its bytes
	end, num int     // where its record ends in the block, and its get number
}

// getRunMax bounds the bytes a joined get reads.
const getRunMax = 1 << 30

func (c *Core) getRunAt(pid int, r getRun) {
	if c.comm.getRuns == nil {
		c.comm.getRuns = make([]getRun, len(c.m.cores))
	}
	c.comm.getRuns[pid] = r
}

// joinGet makes the last get to pid read nbytes more, when this get reads
// the bytes right after its source into the bytes right after its
// destination and nothing was packed for pid after it: one request and
// one reply instead of two, with the same result (every get's source is
// read before any destination is written). Not with statistics, which
// count requests where they arrive.
func (c *Core) joinGet(pid, slot, offset int, dst unsafe.Pointer, nbytes int) bool {
	if c.comm.getRuns == nil || c.m.stats.on {
		return false
	}
	r := &c.comm.getRuns[pid]
	if r.step != c.Superstep()+1 || r.slot != slot || r.next != offset || r.dst != uintptr(dst) || r.num >= len(c.comm.gets) {
		return false
	}
	blk := c.outBlock(laneRequests, pid)
	g := &c.comm.gets[r.num]
	if r.end != blk.used || g.nbytes+nbytes > getRunMax {
		return false
	}
	g.nbytes += nbytes
	binary.LittleEndian.PutUint32(blk.mem[r.end-getRequestSize:], uint32(g.nbytes))
	r.next += nbytes
	r.dst += uintptr(nbytes)
	c.comm.outBytes += nbytes
	return true
}

// serveGet answers a get request for this core's copy of a variable with
// its bytes as they are before any put of the superstep (phase A). The
// reply's memory was counted against the requester's limit.
func (c *Core) serveGet(src int, r record) {
	nbytes := int(binary.LittleEndian.Uint32(r.data[0:]))
	reg, ok := c.incomingSlot("bsp_get", src, int(r.a), int(r.b), nbytes)
	if ok {
		_, _, ok = c.variableGood("bsp_get", src, int(r.a), reg.addr, int(r.b), nbytes, false)
	}
	if ok {
		c.reply(c.outBlock(laneReplies, src), src, binary.LittleEndian.Uint32(r.data[4:]), addAt(reg.addr, int(r.b)), nbytes)
	}
}

// serveGets is serveGet for each record of a block of get requests, the
// common case of a request block, without a call per record (as
// applyPuts).
func (c *Core) serveGets(src int, b *Block) {
	slots := c.incomingSlots(src)
	out := c.outBlock(laneReplies, src)
	mem := b.mem[:b.used]
	for len(mem) >= recordSize(getRequestSize) && c.comm.err == nil {
		slot := int(binary.LittleEndian.Uint32(mem[4:]))
		offset := int(binary.LittleEndian.Uint32(mem[8:]))
		nbytes := int(binary.LittleEndian.Uint32(mem[recHeader:]))
		num := binary.LittleEndian.Uint32(mem[recHeader+4:])
		mem = mem[recordSize(getRequestSize):]
		addr, ok := slots.find(slot, offset, nbytes)
		if !ok {
			c.checkIncoming("bsp_get", src, slot, offset, nbytes) // reports it
			return
		}
		if at := uintptr(addr) + uintptr(offset); at < slots.goodLo || at+uintptr(nbytes) > slots.goodHi || at+uintptr(nbytes) < at {
			if !slots.good("bsp_get", src, slot, offset, nbytes, false) {
				return
			}
		}
		c.reply(out, src, num, addAt(addr, offset), nbytes)
	}
}

// slotCursor finds the registrations a block of requests from one core
// names, looking a slot up once per run of records that name it, and
// checking each request when the sender is in another process (else it
// checked at the call).
type slotCursor struct {
	c       *Core
	checked bool
	last    int            // the slot looked up
	addr    unsafe.Pointer // where its variable starts
	bound   int            // how far requests may reach: its checked size, -1 if none, or no limit
	// pages of the slot's variable found good for this cursor's requests
	// (reads or writes: one kind per block), see Core.variableGood
	goodLo, goodHi uintptr
}

// good is Core.variableGood for a request in the cursor's slot, which
// remembers the pages found good.
func (s *slotCursor) good(call string, src, slot, offset, n int, write bool) bool {
	lo, hi, ok := s.c.variableGood(call, src, slot, s.addr, offset, n, write)
	s.goodLo, s.goodHi = lo, hi
	return ok
}

func (c *Core) incomingSlots(src int) slotCursor {
	return slotCursor{c: c, checked: !c.local(src), last: -1}
}

// find is where slot's variable starts, for n bytes at offset; false
// when the request must be reported (checkIncoming).
func (s *slotCursor) find(slot, offset, n int) (unsafe.Pointer, bool) {
	if slot != s.last {
		s.load(slot)
	}
	return s.addr, offset+n <= s.bound
}

//go:noinline
func (s *slotCursor) load(slot int) { // rare: out of find, which inlines
	reg, found := s.c.slot(slot)
	s.last, s.addr = slot, reg.addr
	s.goodLo, s.goodHi = 0, 0
	switch {
	case !s.checked:
		s.bound = math.MaxInt
	case !found:
		s.bound = -1
	default:
		s.bound = s.c.checkedSize(reg)
	}
}

// reply answers get num of core src with the nbytes at at.
func (c *Core) reply(out *Block, src int, num uint32, at unsafe.Pointer, nbytes int) {
	if min := c.m.comm.refMin; min > 0 && nbytes >= min && !c.local(src) {
		// read where it lies in the next round, before any put is applied
		if err := out.addRef(kindGetReply, num, 0, at, nbytes); err != nil {
			c.comm.err = c.errorf("bsp_sync", "%v", err)
		}
		c.comm.lent = append(c.comm.lent, rangeAt(at, nbytes))
		return
	}
	data, err := out.add(kindGetReply, num, 0, nbytes)
	if err != nil {
		c.comm.err = c.errorf("bsp_sync", "%v", err)
		return
	}
	copyWords(data, at, nbytes)
}

// copyWords copies n bytes from p into data, a word without a call to
// memmove.
func copyWords(data []byte, p unsafe.Pointer, n int) {
	switch n {
	case 8:
		*(*[8]byte)(data) = *(*[8]byte)(p)
	case 4:
		*(*[4]byte)(data) = *(*[4]byte)(p)
	default:
		copy(data, bytesAt(p, n))
	}
}

// completeGet writes a reply to the destination of its get (phase B).
func (c *Core) completeGet(_ int, r record) {
	c.noteReplyOrder(int(r.a))
	g := c.comm.gets[r.a]
	copy(bytesAt(g.dst, g.nbytes), r.data)
}

// Replies are written by source, and a source's in the order of issue;
// where a later get of another source was issued earlier, the sync writes
// them all again in the order of issue (writeRepliesInOrder): destinations
// may overlap, and the get issued last wins, as in one process's direct
// gets. Writing every reply again leaves each byte as its last get in
// issue order has it, whatever was written first.

// noteReplyOrder notes the reply to get num, written after those noted
// before it in this sync.
func (c *Core) noteReplyOrder(num int) {
	if num < c.comm.replyLast {
		c.comm.repliesUnordered = true
	}
	c.comm.replyLast = num
}

// writeRepliesInOrder writes the replies in lane's blocks again, in the
// order of their gets, when they came out of order (deliver).
func (c *Core) writeRepliesInOrder(lane Lane) {
	cs := &c.comm
	unordered := cs.repliesUnordered
	cs.replyLast, cs.repliesUnordered = 0, false
	if lane != laneReplies || !unordered {
		return
	}
	byGet := cs.replyData[:0]
	for range cs.gets {
		byGet = append(byGet, nil)
	}
	t := c.m.comm.transport
	for src := range c.m.cores {
		if blk := t.In(lane, src, c.pid); blk != nil && blk.used > 0 {
			blk.each(func(r record) {
				if r.kind == kindGetReply {
					byGet[r.a] = r.data
				}
			})
		}
	}
	for num, data := range byGet {
		if data != nil {
			copy(bytesAt(cs.gets[num].dst, cs.gets[num].nbytes), data)
		}
	}
	clear(byGet)
	cs.replyData = byGet
}

// completeGets is completeGet for each record of a block of replies.
func (c *Core) completeGets(b *Block) {
	gets := c.comm.gets
	mem := b.mem[:b.used]
	if len(mem) > 0 {
		c.noteReplyOrder(int(binary.LittleEndian.Uint32(mem[4:]))) // the block's first: a source's are in order
	}
	for len(mem) > 0 {
		num := binary.LittleEndian.Uint32(mem[4:])
		g := gets[num]
		n := int(binary.LittleEndian.Uint32(mem[12:]))
		data := mem[recHeader : recHeader+n]
		mem = mem[recordSize(n):]
		switch {
		case n == 8 && g.nbytes == 8:
			*(*[8]byte)(g.dst) = [8]byte(data)
		case n == 4 && g.nbytes == 4:
			*(*[4]byte)(g.dst) = [4]byte(data)
		default:
			copy(bytesAt(g.dst, g.nbytes), data)
		}
		c.comm.replyLast = int(num)
	}
}

// HPGet is bsp_hpget: read from the source at once.
func (c *Core) HPGet(pid int, src unsafe.Pointer, offset int, dst unsafe.Pointer, nbytes int) *Error {
	if !c.local(pid) {
		return c.get("bsp_hpget", pid, src, offset, dst, nbytes, true) // completes at the sync, as BSPlib allows
	}
	return c.readNow("bsp_hpget", pid, src, offset, dst, nbytes)
}

// DirectGet is bsp_direct_get (MulticoreBSP): a blocking get, done at once.
func (c *Core) DirectGet(pid int, src unsafe.Pointer, offset int, dst unsafe.Pointer, nbytes int) *Error {
	return c.readNow("bsp_direct_get", pid, src, offset, dst, nbytes)
}

func (c *Core) readNow(call string, pid int, src unsafe.Pointer, offset int, dst unsafe.Pointer, nbytes int) *Error {
	if pid >= 0 && pid < len(c.m.cores) && !c.local(pid) {
		return c.errorf(call, "core %02d runs in another process (an MPI rank): %s reaches only the cores of this process; use bsp_get", pid, call)
	}
	_, reg, err := c.target(call, pid, src, offset, nbytes)
	if err == nil {
		err = c.checkBuffer(call, "the destination", dst, nbytes, true)
	}
	if err == nil {
		err = c.checkVariable(call, pid, reg.addr, offset, nbytes, false)
	}
	if err != nil {
		return err
	}
	copy(bytesAt(dst, nbytes), bytesAt(addAt(reg.addr, offset), nbytes))
	return nil
}

// RemoteVariable tells where core pid's copy of the registered variable
// addr is and how many bytes of it requests may reach, for copies that the
// C shim makes itself within a superstep; ok is false when the request is
// not a plain one (no such core, addr not registered, the target's slot
// still empty): the shim then calls HPPut/HPGet, which wait or report.
func (c *Core) RemoteVariable(pid int, addr unsafe.Pointer) (remote unsafe.Pointer, size int, ok bool) {
	if pid < 0 || pid >= len(c.m.cores) || !c.local(pid) {
		return nil, 0, false
	}
	slot, ok := c.registeredSlot(addr)
	if !ok {
		return nil, 0, false
	}
	t := c.m.cores[pid]
	reg, ok := t.slot(slot) // next-sync model: fixed until the sync
	if c.m.comm.atOnce {
		// a slot popped in this superstep may be filled again: HPPut waits
		reg, ok = t.slotShared(slot, c.Superstep())
		ok = ok && reg.live
	}
	if !ok {
		return nil, 0, false
	}
	return reg.addr, c.checkedSize(reg), true
}

// DirectAddress is ebsp_get_direct_address: core pid's copy of the
// registered variable addr, or nil when addr is not registered.
func (c *Core) DirectAddress(pid int, addr unsafe.Pointer) (unsafe.Pointer, *Error) {
	reg, err := c.directTarget(pid, addr)
	if err != nil {
		return nil, err
	}
	return reg.addr, nil
}

func (c *Core) directTarget(pid int, addr unsafe.Pointer) (registration, *Error) {
	const call = "ebsp_get_direct_address"
	if pid < 0 || pid >= len(c.m.cores) {
		return registration{}, c.errorf(call, "core %d does not exist (this run has cores 0..%d)", pid, len(c.m.cores)-1)
	}
	if !c.local(pid) {
		return registration{}, c.errorf(call, "core %02d runs in another process (an MPI rank): its memory has no address here", pid)
	}
	slot, ok := c.registeredSlot(addr)
	if !ok {
		if c.m.comm.atOnce {
			return registration{}, c.unknownVariable(call, addr, pid, 0, 0)
		}
		// strict says no less than the board's line of the default level
		return registration{}, c.strictErrorf(call, "the address is not a registered variable (core %02d)", pid)
	}
	return c.remoteTarget(call, pid, addr, slot, 0, 0) // 0 bytes: only the slot is checked
}
