package engine

import (
	"math"
	"slices"
	"unsafe"
)

// Registration (bsp_push_reg, bsp_pop_reg). Every core keeps its own table
// of registrations indexed by slot number, and slot k of every core is one
// variable: a put names the slot, the target resolves it to its own copy.
// There is no fixed slot limit. Two models:
//
//   - at once (EBSP 1.0, the board; CommConfig): a push fills the lowest
//     free slot of the calling core's table at once, a pop empties every
//     slot holding the address, a lookup takes the lowest slot holding it;
//     nbytes is ignored. Slot k of another core may not be filled yet: a
//     request that needs it waits until that core fills it or can no
//     longer do so in the requester's superstep (see remoteReg), which
//     makes the board's race deterministic.
//   - at the next sync (BSPlib, strict): all cores push the same number of
//     registrations in a superstep and pop the same number, the k-th pop
//     withdrawing the same registration on every core (resolvePops), and
//     the sync installs them the same deterministic way on every core
//     (pops in that order, freed slots reused last-freed first, then
//     pushes in order); a lookup takes the newest registration of the
//     address.

// regTable is a core's registrations in force: regs by slot number (equal
// on all cores for one variable), the slots of each address in byAddr (see
// above for which one a lookup takes). Other cores read Core.regsView.
type regTable struct {
	regs     []registration
	freeRegs []int
	byAddr   map[unsafe.Pointer][]int
	last     lookupCache
	pushes   []registration // made in this superstep
	pops     []int          // this superstep's pops in call order, as pop targets (below)
	// the targets in pops, and how many are popNull: a pop looks there, not
	// through pops (n pops in a superstep took n^2/2 looks); valid while
	// pops is not empty (PopReg starts them again with the superstep's first)
	popped   map[int]struct{}
	nullPops int
}

// A pop target is what one bsp_pop_reg names: a slot in force (>= 0); the
// j-th push of this superstep (pushTarget(j): on the BSPlib face below
// strict a pop may withdraw a push of its own superstep, and the two
// cancel out, as BSPonMPI has it); or popNull, a pop of NULL, which
// withdraws whatever the other cores' pops in its position name.
const popNull = -1

func pushTarget(j int) int { return -2 - j }

// pushOf is the push a target names, if it names one.
func pushOf(target int) (int, bool) { return -2 - target, target <= -2 }

// registration is one core's copy of a registered variable.
type registration struct {
	addr   unsafe.Pointer
	size   int
	live   bool
	popped int // not live but addr set: the superstep of the pop (at-once model)
}

// lookupCache remembers the last address looked up: programs tend to
// put into the same variable many times in a row.
type lookupCache struct {
	addr unsafe.Pointer
	slot int
	ok   bool
}

// PushReg is bsp_push_reg.
func (c *Core) PushReg(addr unsafe.Pointer, nbytes int) *Error {
	cs := &c.comm
	c.communicated()
	if c.m.comm.atOnce {
		c.fillSlot(c.lowestFreeSlot(), registration{addr: addr, size: nbytes, live: true})
		c.publishRegs()
		return nil
	}
	if nbytes < 0 {
		return c.errorf("bsp_push_reg", "negative size %d", nbytes)
	}
	if c.m.comm.onePush && len(cs.pushes) > 0 {
		return c.errorf("bsp_push_reg", "a second registration in one superstep (EBSP allows one per superstep)")
	}
	cs.pushes = append(cs.pushes, registration{addr: addr, size: nbytes, live: true})
	return nil
}

// PopReg is bsp_pop_reg.
func (c *Core) PopReg(addr unsafe.Pointer) *Error {
	cs := &c.comm
	c.communicated()
	if c.m.comm.atOnce {
		// The board empties every slot holding addr; an unknown address
		// is silently ignored.
		for _, slot := range cs.byAddr[addr] {
			cs.regs[slot].live = false // other cores still see it until the sync
			cs.regs[slot].popped = c.Superstep()
		}
		delete(cs.byAddr, addr)
		cs.last = lookupCache{}
		c.publishRegs()
		return nil
	}
	if len(cs.pops) == 0 {
		if cs.popped == nil {
			cs.popped = map[int]struct{}{}
		}
		clear(cs.popped)
		cs.nullPops = 0
	}
	target, err := c.popTarget(addr)
	if err != nil {
		return err
	}
	cs.pops = append(cs.pops, target)
	if target == popNull {
		cs.nullPops++
	} else {
		cs.popped[target] = struct{}{}
	}
	return nil
}

// popTarget is what bsp_pop_reg(addr) names on this core: the newest
// registration of addr that no earlier pop of this superstep withdraws,
// this superstep's pushes being the newest where they may be popped. A pop
// of NULL is popNull; strict still wants this core to have a NULL
// registration left for it.
func (c *Core) popTarget(addr unsafe.Pointer) (int, *Error) {
	cs := &c.comm
	lenient := c.m.comm.lenientPops
	if addr == nil && lenient {
		return popNull, nil
	}
	taken := func(t int) bool { _, ok := cs.popped[t]; return ok }
	pushed := 0
	for j := len(cs.pushes) - 1; j >= 0; j-- {
		if cs.pushes[j].addr != addr {
			continue
		}
		pushed++
		if lenient && !taken(pushTarget(j)) {
			return pushTarget(j), nil
		}
	}
	skip := 0 // strict: the earlier pops of NULL took the newest NULL registrations
	if addr == nil {
		skip = cs.nullPops
	}
	stack := cs.byAddr[addr]
	for i := len(stack) - 1; i >= 0; i-- {
		switch {
		case taken(stack[i]):
		case skip > 0:
			skip--
		case addr == nil:
			return popNull, nil
		default:
			return stack[i], nil
		}
	}
	n := len(stack)
	if lenient {
		n += pushed
	}
	switch {
	case n == 0 && pushed > 0:
		return 0, c.errorf("bsp_pop_reg", "the address is not registered yet (its bsp_push_reg in this superstep takes effect at the next bsp_sync)")
	case n == 0:
		return 0, c.errorf("bsp_pop_reg", "the address is not registered")
	}
	return 0, c.errorf("bsp_pop_reg", "the address is registered %d time(s) and all of them are already withdrawn in this superstep", n)
}

// lowestFreeSlot is the slot a push takes in the at-once model: the lowest
// not live (a slot popped in this superstep may be filled again).
func (c *Core) lowestFreeSlot() int {
	for slot, r := range c.comm.regs {
		if !r.live {
			return slot
		}
	}
	return len(c.comm.regs)
}

// fillSlot installs r in slot, growing the table when slot is one past its
// end, and keeps byAddr sorted ascending (the at-once model looks up the
// lowest slot).
func (c *Core) fillSlot(slot int, r registration) {
	cs := &c.comm
	if slot == len(cs.regs) {
		cs.regs = append(cs.regs, registration{})
	}
	cs.regs[slot] = r
	if cs.byAddr == nil {
		cs.byAddr = map[unsafe.Pointer][]int{}
	}
	stack := append(cs.byAddr[r.addr], slot)
	for i := len(stack) - 1; i > 0 && stack[i] < stack[i-1]; i-- {
		stack[i], stack[i-1] = stack[i-1], stack[i]
	}
	cs.byAddr[r.addr] = stack
	cs.last = lookupCache{}
}

// registeredSlot returns the slot the calling core's lookup of addr gives:
// the lowest holding it in the at-once model (as the board scanned its
// table), else the newest registration in force.
func (c *Core) registeredSlot(addr unsafe.Pointer) (int, bool) {
	cs := &c.comm
	if cs.last.ok && cs.last.addr == addr {
		return cs.last.slot, true
	}
	stack := cs.byAddr[addr]
	if len(stack) == 0 {
		return 0, false
	}
	slot := stack[len(stack)-1]
	if c.m.comm.atOnce {
		slot = stack[0]
	}
	cs.last = lookupCache{addr: addr, slot: slot, ok: true}
	return slot, true
}

// NotYet is the answer of a request that needs a registration another
// core may still push in this superstep (the at-once model): nothing was
// done, and the caller waits for the other cores to make progress and makes
// the same call again. The C shim waits in the scheduler, outside Go: a
// coroutine core must not switch with a Go frame on its stack.
var NotYet = &Error{Call: "internal error", What: "a request waits for another core's registration, and its caller did not wait (engine.NotYet)"}

// remoteReg is core pid's registration in slot, for a request of this
// core. In the at-once model the board read whatever the slot held at that
// moment, so the answer raced with pid's own pushes and pops. Here it is
// deterministic: while pid's slot is empty, or popped in this superstep
// (pid may fill it again), the answer is "not yet" (later) until pid fills
// it or can no longer do so in this superstep: pid waits at the barrier
// ahead of this core or left its kernel (Machine.ahead), the run stops, or
// pid itself waits for a registration (two cores waiting for each other).
// Then a popped registration still counts, an empty slot is reported. A
// core still leaving the synchronisation that began this core's superstep
// is waited for: it has not pushed this superstep's registrations yet.
func (c *Core) remoteReg(pid, slot int) (r registration, ok, later bool) {
	t := c.m.cores[pid]
	if !c.m.comm.atOnce || t == c {
		r, ok = t.slot(slot)
		return r, ok, false
	}
	step := c.Superstep()
	if r, ok := t.slotShared(slot, step); ok && r.live {
		c.answered()
		return r, true, false
	}
	if !c.m.Aborted() && !t.waitingReg.Load() && !c.m.ahead(pid, c.pid) {
		c.waitingReg.Store(true)
		return registration{}, false, true
	}
	c.answered()
	// read again: pid pushed before it arrived or began to wait
	r, ok = t.slotShared(slot, step)
	return r, ok, false
}

// answered ends the core's wait for another core's registration, if any.
func (c *Core) answered() {
	if c.waitingReg.Load() {
		c.waitingReg.Store(false)
	}
}

// slot is what another core's request finds in this core's slot: a live
// registration, or one popped in this superstep (at once for the core's
// own lookups, for the others at its next sync, so that a pop never races
// with their requests). A live registration of NULL counts: BSPlib lets a
// core register NULL with size 0.
func (c *Core) slot(slot int) (registration, bool) {
	if slot < len(c.comm.regs) {
		if r := c.comm.regs[slot]; r.live || r.addr != nil {
			return r, true
		}
	}
	return registration{}, false
}

// publishRegs makes the core's table as it is now the one other cores read
// (at-once registrations): a copy, since the core may change its own while
// they read. Pushes and pops are rare next to the requests that read.
func (c *Core) publishRegs() {
	view := slices.Clone(c.comm.regs)
	c.regsView.Store(&view)
}

// slotShared reads the table while its core may be pushing or popping, for
// a request made in superstep step: a registration popped in an earlier
// superstep is gone, even if its core has not yet cleared it (it may still
// be leaving the sync that ended that superstep).
func (c *Core) slotShared(slot, step int) (registration, bool) {
	view := c.regsView.Load()
	if view == nil || slot >= len(*view) {
		return registration{}, false
	}
	if r := (*view)[slot]; r.live || (r.addr != nil && r.popped == step) {
		return r, true
	}
	return registration{}, false
}

// forgetPopped clears the slots popped in the superstep that ends (phase B
// of the sync: no other core reads them now).
func (c *Core) forgetPopped() {
	popped := false
	for i, r := range c.comm.regs {
		if !r.live && r.addr != nil {
			c.comm.regs[i] = registration{}
			popped = true
		}
	}
	if popped {
		c.publishRegs()
	}
}

// checkedSize is the registered size that bounds requests: the target's
// when sizes are enforced, else unbounded (the board ignored nbytes).
func (c *Core) checkedSize(r registration) int {
	if c.m.comm.sizes {
		return r.size
	}
	return math.MaxInt32
}

// installRegistrations applies this superstep's pops and pushes (phase B).
func (c *Core) installRegistrations() {
	if c.m.comm.atOnce {
		c.forgetPopped()
		return
	}
	plan := c.popPlan()
	c.install(plan)
	c.installMirrors(plan)
}

// install applies this superstep's pushes and pops, the pops withdrawing
// what plan says.
func (c *Core) install(plan []int) {
	cs := &c.comm
	if len(cs.pops) == 0 && len(cs.pushes) == 0 {
		return
	}
	cs.last = lookupCache{}
	var cancelled []bool // pushes of this superstep that pops withdraw
	for _, slot := range plan {
		if j, ok := pushOf(slot); ok {
			if cancelled == nil {
				cancelled = make([]bool, len(cs.pushes))
			}
			cancelled[j] = true
			continue
		}
		addr := cs.regs[slot].addr
		cs.byAddr[addr] = removeSlot(cs.byAddr[addr], slot)
		if len(cs.byAddr[addr]) == 0 {
			delete(cs.byAddr, addr)
		}
		cs.regs[slot] = registration{}
		cs.freeRegs = append(cs.freeRegs, slot)
	}
	if cs.byAddr == nil {
		cs.byAddr = map[unsafe.Pointer][]int{}
	}
	for j, r := range cs.pushes {
		if cancelled != nil && cancelled[j] {
			continue
		}
		var slot int
		if n := len(cs.freeRegs); n > 0 {
			slot = cs.freeRegs[n-1]
			cs.freeRegs = cs.freeRegs[:n-1]
		} else {
			slot = len(cs.regs)
			cs.regs = append(cs.regs, registration{})
		}
		cs.regs[slot] = r
		cs.byAddr[r.addr] = append(cs.byAddr[r.addr], slot)
	}
	cs.pops = cs.pops[:0]
	cs.popsIn = cs.popsIn[:0]
	cs.pushes = cs.pushes[:0]
}

// popPlan is what this superstep's pops withdraw, in order: core 0's
// resolution (resolvePops), the same on every core whatever this core's
// own pops named.
func (c *Core) popPlan() []int {
	if len(c.comm.pops) == 0 {
		return nil
	}
	if c.pid != 0 {
		return c.comm.popsIn // sent by core 0 (sendPopPlan)
	}
	return c.m.comm.popPlan
}

func removeSlot(stack []int, slot int) []int {
	for i := len(stack) - 1; i >= 0; i-- {
		if stack[i] == slot {
			return append(stack[:i], stack[i+1:]...)
		}
	}
	return stack
}

// Registrations is the number of registrations in force on this core.
func (c *Core) Registrations() int {
	n := 0
	for _, r := range c.comm.regs {
		if r.live {
			n++
		}
	}
	return n
}
