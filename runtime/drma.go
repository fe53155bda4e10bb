package runtime

import "unsafe"

// DRMA: bsp_put and bsp_get are buffered (packed now, carried out at the
// next bsp_sync); bsp_hpput, bsp_hpget and bsp_direct_get copy at once.

// getRequest is a bsp_get waiting for the sync: phase A reads the source
// into getBuf at off, phase B copies it to dst.
type getRequest struct {
	src    int
	slot   int
	offset int
	nbytes int
	dst    unsafe.Pointer
	off    int
}

// target parses a DRMA request to or from the registered variable addr of
// core pid: it returns that core's copy of the variable.
func (c *Core) target(call string, pid int, addr unsafe.Pointer, offset, nbytes int) (int, registration, *Error) {
	if pid < 0 || pid >= len(c.m.cores) {
		return 0, registration{}, c.errorf(call, "core %d does not exist (this run has cores 0..%d)", pid, len(c.m.cores)-1)
	}
	if nbytes < 0 {
		return 0, registration{}, c.errorf(call, "negative size %d (core %02d)", nbytes, pid)
	}
	if offset < 0 {
		return 0, registration{}, c.errorf(call, "negative offset %d (core %02d)", offset, pid)
	}
	slot, ok := c.registeredSlot(addr)
	if !ok {
		return 0, registration{}, c.unknownVariable(call, addr, pid, offset, nbytes)
	}
	reg, ok := c.remoteReg(pid, slot)
	if !ok {
		return 0, registration{}, c.errorf(call, "core %02d has no variable in registration slot %d, where this core has %p: "+
			"it had not registered it by its next synchronisation, or popped it", pid, slot, addr)
	}
	if !c.m.comm.unchecked && offset+nbytes > c.checkedSize(reg) {
		return 0, registration{}, c.errorf(call, "%d bytes at offset %d exceed the %d bytes core %02d registered", nbytes, offset, reg.size, pid)
	}
	return slot, reg, nil
}

// unknownVariable reports a request naming an address this core has not
// registered: the board printed a line and ignored the call.
func (c *Core) unknownVariable(call string, addr unsafe.Pointer, pid, offset, nbytes int) *Error {
	if c.m.comm.atOnce {
		return c.boardNotice(call, "BSP ERROR: could not find bsp var 0x%x", uintptr(addr))
	}
	return c.errorf(call, "the address is not a registered variable (core %02d, %d bytes at offset %d)", pid, nbytes, offset)
}

func (c *Core) checkBuffer(call, what string, p unsafe.Pointer, nbytes int) *Error {
	if p == nil && nbytes > 0 && !c.m.comm.unchecked {
		return c.errorf(call, "%s is NULL but nbytes is %d", what, nbytes)
	}
	return nil
}

// Put is bsp_put: src is copied now and written at the next sync.
func (c *Core) Put(pid int, src, dst unsafe.Pointer, offset, nbytes int) *Error {
	slot, _, err := c.target("bsp_put", pid, dst, offset, nbytes)
	if err == nil {
		err = c.checkBuffer("bsp_put", "the source", src, nbytes)
	}
	if err != nil {
		return err
	}
	data, err := c.pack("bsp_put", pid, recPut, uint32(slot), uint32(offset), nbytes)
	if err != nil {
		return err
	}
	copy(data, bytesAt(src, nbytes))
	return nil
}

// HPPut is bsp_hpput: written into the target's variable at once.
func (c *Core) HPPut(pid int, src, dst unsafe.Pointer, offset, nbytes int) *Error {
	_, reg, err := c.target("bsp_hpput", pid, dst, offset, nbytes)
	if err == nil {
		err = c.checkBuffer("bsp_hpput", "the source", src, nbytes)
	}
	if err != nil {
		return err
	}
	copy(bytesAt(addAt(reg.addr, offset), nbytes), bytesAt(src, nbytes))
	return nil
}

// Get is bsp_get: the source is read during the next sync, before any
// put of this superstep is applied.
func (c *Core) Get(pid int, src unsafe.Pointer, offset int, dst unsafe.Pointer, nbytes int) *Error {
	slot, _, err := c.target("bsp_get", pid, src, offset, nbytes)
	if err == nil {
		err = c.checkBuffer("bsp_get", "the destination", dst, nbytes)
	}
	if err != nil {
		return err
	}
	cs := &c.comm
	if cs.outBytes+nbytes > c.m.comm.limit {
		return c.errorf("bsp_get", "communication memory exhausted: this core requested more than %d MiB in one superstep (raise %s)",
			c.m.comm.limit>>20, CommLimitEnv)
	}
	cs.outBytes += nbytes
	cs.gets = append(cs.gets, getRequest{src: pid, slot: slot, offset: offset, nbytes: nbytes, dst: dst, off: cs.getBytes})
	cs.getBytes += nbytes
	cs.active = true
	if c.m.stats.on {
		c.countGot(pid, nbytes)
	}
	return nil
}

// HPGet is bsp_hpget: read from the source at once.
func (c *Core) HPGet(pid int, src unsafe.Pointer, offset int, dst unsafe.Pointer, nbytes int) *Error {
	return c.readNow("bsp_hpget", pid, src, offset, dst, nbytes)
}

// DirectGet is bsp_direct_get (MulticoreBSP): a blocking get, done at once.
func (c *Core) DirectGet(pid int, src unsafe.Pointer, offset int, dst unsafe.Pointer, nbytes int) *Error {
	return c.readNow("bsp_direct_get", pid, src, offset, dst, nbytes)
}

func (c *Core) readNow(call string, pid int, src unsafe.Pointer, offset int, dst unsafe.Pointer, nbytes int) *Error {
	_, reg, err := c.target(call, pid, src, offset, nbytes)
	if err == nil {
		err = c.checkBuffer(call, "the destination", dst, nbytes)
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
	if pid < 0 || pid >= len(c.m.cores) {
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
	slot, ok := c.registeredSlot(addr)
	if !ok {
		if c.m.comm.atOnce {
			return registration{}, c.unknownVariable(call, addr, pid, 0, 0)
		}
		return registration{}, nil
	}
	reg, ok := c.remoteReg(pid, slot)
	if !ok {
		return registration{}, c.errorf(call, "core %02d has no variable in registration slot %d, where this core has %p: "+
			"it had not registered it by its next synchronisation, or popped it", pid, slot, addr)
	}
	return reg, nil
}

// serveGets reads every get's source into getBuf (phase A).
func (c *Core) serveGets() {
	cs := &c.comm
	if len(cs.gets) == 0 {
		return
	}
	cs.getBuf.reset()
	if err := cs.getBuf.grow(cs.getBytes); err != nil {
		cs.err = c.errorf("bsp_sync", "%v", err)
		return
	}
	buf := cs.getBuf.take(cs.getBytes)
	for _, g := range cs.gets {
		reg, _ := c.m.cores[g.src].slot(g.slot) // popped in this superstep still counts
		copy(buf[g.off:g.off+g.nbytes], bytesAt(addAt(reg.addr, g.offset), g.nbytes))
	}
}

// writeGetResults copies what phase A read to the gets' destinations.
func (c *Core) writeGetResults() {
	cs := &c.comm
	for _, g := range cs.gets {
		copy(bytesAt(g.dst, g.nbytes), cs.getBuf.mem[g.off:g.off+g.nbytes])
	}
	cs.gets = cs.gets[:0]
	cs.getBytes = 0
}
