package runtime

// Direct DRMA: bsp_put and bsp_get without parsing or packing. The C shim
// resolves a request's remote address at the call (RemoteVariable, cached,
// as the board does) and logs it: a get in the requester's log, a put in
// the sender's log for its destination; in the sync the cores carry them
// out when the engine says so (capi/direct.c). The engine decides whether
// a core may, and the order: every get reads its source after the first
// barrier, before any put is applied; after the next barrier each core
// writes its gets' destinations (one may be a registered variable another
// core's get reads), then its get replies, then applies the puts sent to
// it, packed ones and then direct ones by source pid and issue order: a
// put wins over a get, and overlapping puts end the same way in every run.
// Direct requests raise their own flags, not the sync flags: a superstep
// with nothing else needs no call into the engine (superstep.go, and
// bsp_sync's fast path in capi/core_api.c).

// DirectKind is a kind of direct request.
type DirectKind int

const (
	DirectPut DirectKind = iota
	DirectGet
)

// DirectDRMA is the C shim's side of direct requests; each method runs on
// core pid's thread.
type DirectDRMA interface {
	ReadGets(pid int)  // read pid's gets' sources
	WriteGets(pid int) // write pid's gets' destinations
	ApplyPuts(pid int) // apply the puts logged for pid, by source pid
}

// directState is superstep+1 of the last superstep in which the core was
// allowed direct requests of each kind.
type directState [2]int32

// SetDirectDRMA lets cores make direct requests (BeginDirect), carried
// out by d. Set once by the C shim.
func (m *Machine) SetDirectDRMA(d DirectDRMA) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.comm.direct = d
}

// BeginDirect tells whether this core's requests of kind may be direct in
// this superstep, and how many bytes it may log. Not when the engine must
// see each request: statistics count them, strict checks are the careful
// mode, and a transport other than shared memory carries them (a core
// cannot reach into another machine).
func (c *Core) BeginDirect(kind DirectKind) (budget int, ok bool) {
	mc := &c.m.comm
	if _, shared := mc.transport.(*sharedMemory); !shared || mc.direct == nil || c.m.stats.on || mc.checks == CheckStrict {
		return 0, false
	}
	c.comm.direct[kind] = int32(c.Superstep() + 1)
	c.flag(c.directFlags(kind))
	return mc.limit - c.comm.outBytes, true
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
	if kind == DirectGet {
		return c.commExhausted("bsp_get")
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

// applyDirectPuts: after every get read its source and after this core
// wrote its gets' destinations. Every core does it when some core made
// direct puts.
func (c *Core) applyDirectPuts() {
	if c.flagged(c.m.comm.directPuts) {
		c.m.comm.direct.ApplyPuts(c.pid)
	}
}
