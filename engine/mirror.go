package engine

import "unsafe"

// Mirrors: the registration tables of cores in other processes, kept in
// this one so that a request to such a core is checked at the call, with
// the message it has within one process. Under the collective
// registration rules every core sends, in step 0 of a sync in which it
// pushed or popped, its pushes' sizes and its number of pops to the cores
// of other processes; the first core of this process keeps them and, in
// phase B, applies them to the core's table here as the core does to its
// own (the pops withdraw what core 0's plan says, on every core alike).
// A mirrored registration has the size and, for its address, NULL or
// notNull: core 0 resolves pops of NULL with the mirrors (nullEverywhere).

// kindRegMirror is a mirror record (laneRequests): a is the number of
// pushes, b of pops, the payload a word (int32) per push: its size, or
// -1-size for a push of NULL.
const kindRegMirror = kindPopPlan + 1

// notNull is the address of a mirrored registration of a variable that
// is not NULL: it says only that (the variable is in another process).
var notNull = unsafe.Pointer(new(byte))

func init() { registerKind(kindRegMirror, (*Core).receiveRegMirror) }

// sendRegMirror sends this superstep's pushes and pops to the cores of
// other processes (the transport says which are).
func (c *Core) sendRegMirror() {
	cs := &c.comm
	if c.m.comm.atOnce || (len(cs.pushes) == 0 && len(cs.pops) == 0) {
		return
	}
	for pid := range c.m.cores {
		if c.local(pid) {
			continue
		}
		data, err := c.outBlock(laneRequests, pid).add(kindRegMirror, uint32(len(cs.pushes)), uint32(len(cs.pops)), 4*len(cs.pushes))
		if err != nil {
			cs.err = c.errorf("bsp_sync", "%v", err)
			return
		}
		words := make([]int, len(cs.pushes))
		for i, r := range cs.pushes {
			words[i] = r.size
			if r.addr == nil {
				words[i] = -1 - r.size
			}
		}
		putInt32s(data, words)
	}
}

// receiveRegMirror keeps core src's pushes and pops in its core here, on
// the first core of this process (the others drop theirs).
func (c *Core) receiveRegMirror(src int, r record) {
	if c.pid != c.firstLocal() {
		return
	}
	g := &c.m.cores[src].comm
	g.pushes = g.pushes[:0]
	for _, w := range int32s(nil, r.data) {
		reg := registration{addr: notNull, size: w, live: true}
		if w < 0 {
			reg.addr, reg.size = nil, -1-w
		}
		g.pushes = append(g.pushes, reg)
	}
	g.pops = append(g.pops[:0], make([]int, r.b)...)
	c.comm.mirrored = append(c.comm.mirrored, src)
}

// installMirrors applies the pushes and pops received for the cores of
// other processes (phase B, on the first core of this one), with plan.
func (c *Core) installMirrors(plan []int) {
	for _, src := range c.comm.mirrored {
		g := c.m.cores[src]
		g.install(plan)
		g.comm.pops, g.comm.pushes = g.comm.pops[:0], g.comm.pushes[:0]
	}
	c.comm.mirrored = c.comm.mirrored[:0]
}

// firstLocal is the lowest pid of this process.
func (c *Core) firstLocal() int {
	for pid := range c.m.cores {
		if c.local(pid) {
			return pid
		}
	}
	return 0
}
