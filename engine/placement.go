package engine

import (
	"encoding/binary"
	"unsafe"
)

// Placement lets a transport between processes receive a large payload
// straight into where the sync writes it, instead of into a buffer the
// sync then copies from (a second copy of large data): for a put, the
// engine chooses the address and the receive is the write, the one put
// the PutWriter does not write (putwrite.go). An MPI world (world/mpi)
// receives puts so in the first round of a sync, and get replies in the
// second (after phase A has read every get's source, before phase B
// writes get destinations and then puts). Written that early, a payload must end as the sync would
// have written it. A put:
//
//   - no get in the superstep (on any core: the flags are merged by the
//     round that calls this): phase A reads get sources, and a put wins
//     over a get destination written in phase B;
//   - not strict checks (which apply puts by source pid); statistics
//     count a placed put here, into its core's received bytes (stats.go);
//   - the record's target registered and the bytes inside it, as
//     applyPuts checks (else the sync reports it, from the buffer);
//   - no earlier record of the same source for the same core writes any of
//     its bytes: the sync applies those later, and issue order must win.
//
// Puts of different sources to the same bytes end in no defined order in
// this mode (as direct puts within a process, see BeginDirect). A get
// reply:
//
//   - not strict checks, as puts;
//   - its destination overlaps no other get's of its core: not a direct
//     get's (phase B writes their destinations before the replies, which
//     must win), nor another reply's (phase B writes them by source, then
//     in issue order); nor a source that a core of this process sends by
//     reference in the same round (serveGet: those bytes are read while
//     the reply lands).
//
// The transport walks the records of one source for one core in issue
// order, calling Record for each (with the header alone for those whose
// bytes it receives apart) and leaving out of the block it hands the
// engine those that Record placed.
type Placement struct {
	c      *Core
	far    bool        // from another process, without strict checks: replies may be placed
	puts   bool        // and puts too
	writes []slotBytes // per slot, the bytes the earlier records write
}

type slotBytes struct{ slot, lo, hi int }

// memRange is the bytes [lo, hi) of this process's memory.
type memRange struct{ lo, hi uintptr }

func rangeAt(p unsafe.Pointer, n int) memRange {
	return memRange{uintptr(p), uintptr(p) + uintptr(n)}
}

func (r memRange) overlaps(o memRange) bool { return r.lo < o.hi && o.lo < r.hi }

// placeScan bounds the gets a core may have for its replies to be placed:
// the look for overlaps walks them.
const placeScan = 1024

// Placement begins the placement of the records core src (of another
// process) sent to core dst (of this one) in this round.
func (m *Machine) Placement(src, dst int) Placement {
	if dst < 0 || dst >= len(m.cores) {
		return Placement{}
	}
	c := m.cores[dst]
	mc := &m.comm
	if mc.checks == CheckStrict || c.local(src) || !c.local(dst) {
		return Placement{c: c}
	}
	return Placement{c: c, far: true, puts: !c.flagged(mc.gets) && !c.flagged(mc.directGets)}
}

// Record takes the next record's header (kind, two arguments, length):
// where its bytes may be received when apart is set and the rules above
// allow it, else nil.
func (p *Placement) Record(header []byte, apart bool) unsafe.Pointer {
	if p.c == nil {
		return nil
	}
	a := int(binary.LittleEndian.Uint32(header[4:]))
	b := int(binary.LittleEndian.Uint32(header[8:]))
	n := int(binary.LittleEndian.Uint32(header[12:]))
	switch Kind(binary.LittleEndian.Uint32(header)) {
	case kindPut:
		return p.put(a, b, n, apart)
	case kindGetReply:
		if apart && p.far {
			return p.c.replyTarget(a, n)
		}
	}
	return nil
}

// put is Record for a put of n bytes at offset of slot.
func (p *Placement) put(slot, offset, n int, apart bool) unsafe.Pointer {
	lo, hi := offset, offset+n
	free := true
	i := 0
	for ; i < len(p.writes); i++ {
		if w := &p.writes[i]; w.slot == slot {
			free = hi <= w.lo || lo >= w.hi
			w.lo, w.hi = min(w.lo, lo), max(w.hi, hi)
			break
		}
	}
	if i == len(p.writes) {
		p.writes = append(p.writes, slotBytes{slot, lo, hi})
	}
	if !apart || !p.puts || !free || n == 0 {
		return nil
	}
	reg, found := p.c.slot(slot)
	if !found || reg.addr == nil || offset < 0 || hi > p.c.checkedSize(reg) {
		return nil
	}
	if p.c.m.stats.on {
		p.c.received[p.c.Superstep()%2].putBytes.Add(int64(n))
	}
	return addAt(reg.addr, offset)
}

// replyTarget is the destination of this core's get num, when its reply
// of n bytes may be received there (the rules above), else nil.
func (c *Core) replyTarget(num, n int) unsafe.Pointer {
	gets := c.comm.gets
	if num < 0 || num >= len(gets) || gets[num].nbytes != n || n == 0 || len(gets) > placeScan {
		return nil
	}
	dst := rangeAt(gets[num].dst, n)
	for i, g := range gets {
		if i != num && dst.overlaps(rangeAt(g.dst, g.nbytes)) {
			return nil
		}
	}
	if c.madeDirect(DirectGet) && c.m.comm.direct.GetsWrite(c.pid, gets[num].dst, n, placeScan) {
		return nil
	}
	for _, o := range c.m.cores {
		for _, r := range o.comm.lent {
			if dst.overlaps(r) {
				return nil
			}
		}
	}
	return gets[num].dst
}
