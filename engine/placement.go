package engine

import (
	"encoding/binary"
	"unsafe"
)

// Placement lets a transport between processes receive a large put's
// bytes straight into its target, instead of into a buffer the sync then
// copies from: an MPI world receives them in the first round of the sync
// (world/mpi), before the steps that read or write registered memory.
// Written that early, a put must end as the sync would have written it:
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
// this mode (as direct puts within a process, see BeginDirect).
//
// The transport walks the records of one source for one core in issue
// order, calling Record for each (with the header alone for those whose
// bytes it receives apart) and leaving out of the block it hands the
// engine those that Record placed.
type Placement struct {
	c      *Core
	ok     bool
	writes []slotBytes // per slot, the bytes the earlier records write
}

type slotBytes struct{ slot, lo, hi int }

// Placement begins the placement of the records core src (of another
// process) sent to core dst (of this one) in this round.
func (m *Machine) Placement(src, dst int) Placement {
	if dst < 0 || dst >= len(m.cores) {
		return Placement{}
	}
	c := m.cores[dst]
	mc := &m.comm
	ok := mc.checks != CheckStrict && !c.local(src) && c.local(dst) &&
		!c.flagged(mc.gets) && !c.flagged(mc.directGets)
	return Placement{c: c, ok: ok}
}

// Record takes the next record's header (kind, slot, offset, length):
// where its bytes may be received when apart is set and the rules above
// allow it, else nil.
func (p *Placement) Record(header []byte, apart bool) unsafe.Pointer {
	if p.c == nil || Kind(binary.LittleEndian.Uint32(header)) != kindPut {
		return nil
	}
	slot := int(binary.LittleEndian.Uint32(header[4:]))
	offset := int(binary.LittleEndian.Uint32(header[8:]))
	n := int(binary.LittleEndian.Uint32(header[12:]))
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
	if !apart || !p.ok || !free || n == 0 {
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
