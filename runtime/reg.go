package runtime

import "unsafe"

// Registration (bsp_push_reg, bsp_pop_reg). Every core keeps its own
// table of registrations indexed by slot number. All cores push the same
// number of registrations in a superstep and withdraw the same ones, so
// installing them in the same deterministic way (pops sorted by slot,
// freed slots reused last-freed first, then pushes in order) gives a
// variable the same slot on every core. A put names the slot; the target
// resolves it to its own address. There is no fixed slot limit.

// registration is one core's copy of a registered variable.
type registration struct {
	addr unsafe.Pointer
	size int
	live bool
}

// lookupCache remembers the last address looked up: programs tend to
// put into the same variable many times in a row.
type lookupCache struct {
	addr unsafe.Pointer
	slot int
	ok   bool
}

// PushReg is bsp_push_reg: it takes effect at the next bsp_sync.
func (c *Core) PushReg(addr unsafe.Pointer, nbytes int) *Error {
	if nbytes < 0 {
		return c.errorf("bsp_push_reg", "negative size %d", nbytes)
	}
	c.comm.pushes = append(c.comm.pushes, registration{addr: addr, size: nbytes, live: true})
	return nil
}

// PopReg is bsp_pop_reg: the newest registration of addr not yet withdrawn
// in this superstep goes at the next bsp_sync.
func (c *Core) PopReg(addr unsafe.Pointer) *Error {
	cs := &c.comm
	stack := cs.byAddr[addr]
	pending := 0
	for _, slot := range cs.pops {
		if cs.regs[slot].addr == addr {
			pending++
		}
	}
	if pending >= len(stack) {
		if len(stack) == 0 {
			return c.errorf("bsp_pop_reg", "the address is not registered (a bsp_push_reg takes effect only at the next bsp_sync)")
		}
		return c.errorf("bsp_pop_reg", "the address is registered %d time(s) and all of them are already withdrawn in this superstep", len(stack))
	}
	cs.pops = append(cs.pops, stack[len(stack)-1-pending])
	return nil
}

// registeredSlot returns the slot of the newest registration of addr in force.
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
	cs.last = lookupCache{addr: addr, slot: slot, ok: true}
	return slot, true
}

// installRegistrations applies this superstep's pops and pushes (phase B).
func (c *Core) installRegistrations() {
	cs := &c.comm
	if len(cs.pops) == 0 && len(cs.pushes) == 0 {
		return
	}
	cs.last = lookupCache{}
	for _, slot := range cs.pops {
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
	for _, r := range cs.pushes {
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
	cs.pushes = cs.pushes[:0]
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
	return len(c.comm.regs) - len(c.comm.freeRegs)
}
