package engine

import (
	"fmt"
	"math"
	"sync/atomic"
	"unsafe"

	"libebsp/emesh"
)

// CommLimitEnv names the environment variable that bounds the bytes a core
// may queue for other cores in one superstep (MiB, default 1024; 256 in a
// 32-bit build, see defaultCommLimit).
const CommLimitEnv = "EBSP_COMM_LIMIT_MB"

// defaultCommLimit: 1 GiB, or 256 MiB when the whole process has 4 GiB of
// address space (a 32-bit build: emesh.AddressBits).
const defaultCommLimit = 1 << (28 + 2*(emesh.AddressBits/64))

// commState is one core's communication state: each layer's own state,
// in the layer's file, and the superstep's.
type commState struct {
	regTable             // registrations (reg.go)
	drmaState            // gets waiting for replies (drma.go)
	bsmpState            // tag size, message queue (bsmp.go)
	hostState            // messages to the host (hostq.go)
	agree     agreeState // core 0: the others' registration summaries (agreement.go)

	outBlocks [lanes][]*Block // the transport's blocks for each destination, once asked for
	outBytes  int             // packed in this superstep, against the limit
	popsIn    []int           // core 0's plan of this sync's pops (agreement.go)
	mirrored  []int           // cores of other processes whose pushes or pops came (mirror.go)
	writes    writeList       // puts listed for the writer (putwrite.go), kept between runs
	active    bool            // a request was packed or recorded in this superstep
	err       *Error          // misuse found during a sync step
}

// machineComm is the machine-wide communication state.
type machineComm struct {
	flags     *syncFlags // see superstep.go; C memory when shared (ShareSyncFlags)
	checks    CheckLevel
	atSync    bool // registrations at the next sync whatever the level (Face.RegistrationsAtSync)
	atOnce    bool // registrations take effect at the call (EBSP 1.0), not at the next sync
	onePush   bool // one bsp_push_reg per superstep (EBSP's documented rule, strict)
	sizes     bool // puts and gets must stay inside the target's registered size
	unchecked bool // no per-request checks (NULL buffers)
	limit     int
	transport Transport
	refMin    int // the transport's RefMin, or 0: gets from other processes answered by reference
	// makeTransport makes the transport of a run (nil: shared memory)
	makeTransport func(n int) Transport
	// direct DRMA (direct.go): the shim's side, or nil; some core made
	// direct puts, direct gets (C memory when shared), gets in superstep s
	direct                 DirectDRMA
	directPuts, directGets *syncFlags
	gets, directSends      *syncFlags

	hostTag int  // ebsp_set_tagsize
	endTag  int  // tag size the cores ended the last run with
	ran     bool // a run finished since bsp_begin
	down    []hostOutbox
	hostQ   msgQueue

	// registrations at sync below strict: a pop may withdraw a push of its own
	// superstep, and the cores' pops are not held to one order
	lenientPops bool
	popPlan     []int // core 0's resolution of a sync's pops (agreement.go), read by all in phase B
}

// CommConfig sets the check level (see CheckLevel) and the per-core,
// per-superstep communication memory limit in MiB (0 keeps the default).
// The level decides the registration model: at once, as on the board, or
// collective at the next sync (strict). Checks that keep the engine itself
// sound (pid range, negative sizes, registrations and tag sizes that
// differ between cores) always run.
func (m *Machine) CommConfig(level CheckLevel, limitMiB int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.comm.setChecks(level)
	m.comm.limit = limitMiB << 20
	if limitMiB <= 0 {
		m.comm.limit = defaultCommLimit
	} else if limitMiB > math.MaxInt>>20 { // more than an int holds (a 32-bit build: 2 GiB)
		m.comm.limit = math.MaxInt
	}
}

// SetRegistrationsAtSync makes the registrations follow BSPlib whatever
// the check level: collective, effective at the next sync, several per
// superstep, sizes enforced (unless the level is CheckOff). A face asks
// for it through Face.RegistrationsAtSync.
func (m *Machine) SetRegistrationsAtSync(on bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.comm.atSync = on
	m.comm.setChecks(m.comm.checks)
}

func (mc *machineComm) setChecks(level CheckLevel) {
	mc.checks = level
	mc.atOnce = level != CheckStrict && !mc.atSync
	mc.sizes = level == CheckStrict || (mc.atSync && level != CheckOff)
	mc.onePush = level == CheckStrict && !mc.atSync
	mc.unchecked = level == CheckOff
	mc.lenientPops = mc.atSync && level != CheckStrict
}

// Checks is the check level of the current run.
func (m *Machine) Checks() CheckLevel { return m.comm.checks }

// startComm prepares every core's communication state for a run and
// hands out the messages sent down. Called with m.mu held.
func (m *Machine) startComm() error {
	mc := &m.comm
	if mc.limit == 0 {
		mc.limit = defaultCommLimit
	}
	if mc.flags == nil {
		mc.flags, mc.directPuts, mc.directGets, mc.gets, mc.directSends = new(syncFlags), new(syncFlags), new(syncFlags), new(syncFlags), new(syncFlags)
	}
	for _, f := range m.SyncFlags() {
		for i := range f {
			f[i].Store(0) // an earlier run's superstep s is this run's too
		}
	}
	if mc.transport != nil {
		mc.transport.Release()
	}
	mc.transport = m.newTransport(len(m.cores))
	mc.refMin = 0
	if t, ok := mc.transport.(RefOut); ok {
		mc.refMin = t.RefMin()
	}
	mc.hostQ.clear()
	for _, c := range m.cores {
		c.comm.resetRun(mc.hostTag)
		c.mirrorTagsize()
		if c.pid < len(mc.down) {
			if err := mc.down[c.pid].deliver(&c.comm.queue); err != nil {
				return fmt.Errorf("ebsp_spmd: messages sent down to core %d: %v", c.pid, err)
			}
		}
		c.needSync() // messages sent down, or statistics
	}
	return nil
}

// finishComm collects the messages the cores sent up. Called with m.mu held.
func (m *Machine) finishComm() {
	mc := &m.comm
	for i := range mc.down {
		mc.down[i].clear()
	}
	mc.hostQ.clear()
	if m.abort != nil || len(m.cores) == 0 {
		return
	}
	mc.ran = true
	mc.endTag = m.cores[0].comm.tagsize
	for _, c := range m.cores {
		for _, s := range c.comm.upMsgs {
			if err := mc.hostQ.push(s.message(&c.comm.up)); err != nil {
				panic(err) // the system refused a few bytes, as append would
			}
		}
	}
}

// releaseComm returns all communication memory (bsp_end). Called with m.mu held.
func (m *Machine) releaseComm() {
	for _, c := range m.cores {
		c.comm.release()
	}
	if m.comm.transport != nil {
		m.comm.transport.Release()
		m.comm.transport = nil
	}
	for i := range m.comm.down {
		m.comm.down[i].buffer.free()
	}
	m.comm.down = nil
	m.comm.hostQ.clear()
	m.comm.ran = false
}

func (cs *commState) resetRun(tagsize int) {
	inbox, up, queue, writes := cs.inbox, cs.up, cs.queue, cs.writes // the queue may be shared with C
	*cs = commState{bsmpState: bsmpState{inbox: inbox, queue: queue, tagsize: tagsize, newTag: -1}, hostState: hostState{up: up}, writes: writes}
	cs.writes.n = 0
	cs.inbox.reset()
	cs.up.reset()
	cs.queue.clear()
}

func (cs *commState) release() {
	cs.inbox.free()
	cs.up.free()
	cs.queue.free()
	cs.writes.free()
	*cs = commState{bsmpState: bsmpState{newTag: -1}}
}

// newTransport is the transport of a run on n cores: shared memory, or
// what a test chose (UseTransport).
func (m *Machine) newTransport(n int) Transport {
	if m.comm.makeTransport != nil {
		return m.comm.makeTransport(n)
	}
	return newSharedMemory(n)
}

// UseTransport makes the runs that start from now on move their blocks
// with the transport that make returns for n cores (nil: shared memory).
func (m *Machine) UseTransport(make func(n int) Transport) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.comm.makeTransport = make
}

// SyncFlags are every flag word whose value must be the same on every
// core at a barrier: a world of several processes merges them (each holds
// superstep+1 of the last superstep something happened in, so the
// largest wins).
func (m *Machine) SyncFlags() []*[2]atomic.Int32 {
	mc := &m.comm
	return []*[2]atomic.Int32{mc.flags, mc.directPuts, mc.directGets, mc.gets, mc.directSends}
}

// ShareSyncFlags makes the engine keep its flag words (SyncFlags: the
// sync flags, then those of direct puts, direct gets, gets and direct
// sends) in f, e.g. C memory that the C shim's bsp_sync reads (see
// superstep.go) and a world of several processes merges.
func (m *Machine) ShareSyncFlags(f [5]*[2]atomic.Int32) {
	m.mu.Lock()
	defer m.mu.Unlock()
	mc := &m.comm
	mc.flags, mc.directPuts, mc.directGets, mc.gets, mc.directSends = f[0], f[1], f[2], f[3], f[4]
}

// outBlock is the transport's block for dst in lane, remembered: asking
// the transport on every request was a sixth of a put's cost.
func (c *Core) outBlock(lane Lane, dst int) *Block {
	blocks := c.comm.outBlocks[lane]
	if blocks == nil {
		blocks = make([]*Block, len(c.m.cores))
		c.comm.outBlocks[lane] = blocks
	}
	if blocks[dst] == nil {
		blocks[dst] = c.m.comm.transport.Out(lane, c.pid, dst)
	}
	return blocks[dst]
}

// pack reserves a record of kind with payload room n in this core's block
// for dst in lane, within the core's per-superstep limit, and returns the
// payload part.
func (c *Core) pack(call string, lane Lane, dst int, kind Kind, a, b uint32, n int) ([]byte, *Error) {
	cs := &c.comm
	size := recordSize(n)
	if cs.outBytes+size > c.m.comm.limit {
		return nil, c.commExhausted(call)
	}
	data, err := c.outBlock(lane, dst).add(kind, a, b, n)
	if err != nil {
		return nil, c.errorf(call, "%v", err)
	}
	cs.outBytes += size
	c.communicated()
	return data, nil
}

func (c *Core) commExhausted(call string) *Error {
	return c.errorf(call, "communication memory exhausted: this core queued more than %d MiB in one superstep (raise %s)",
		c.m.comm.limit>>20, CommLimitEnv)
}

// addAt is p + off.
func addAt(p unsafe.Pointer, off int) unsafe.Pointer { return unsafe.Add(p, off) }
