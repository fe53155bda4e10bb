package engine

// Fuzz targets for the communication engine. Each input is a small SPMD
// program (a core count and a list of operations that every core runs,
// some of them varied by pid) executed on the commdriver (spmd) with real
// goroutine cores, then compared with a sequential model of BSPlib
// semantics written independently of the engine's data structures.
//
// `go test ./engine/` runs the seed corpus below (and anything saved in
// testdata/fuzz/) in well under a second. To fuzz for longer, one target
// at a time:
//
//	go test -run='^$' -fuzz=FuzzRegistrations -fuzztime=5m ./engine/
//	go test -run='^$' -fuzz=FuzzMessages -fuzztime=5m ./engine/
//
// or `make fuzz FUZZTIME=5m` for both. A failing input is saved under
// engine/testdata/fuzz/<target>/ and from then on runs as a seed: keep it
// (commit it) as the regression test once the bug is fixed.

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unsafe"
)

// fuzzOp is one decoded operation: a code and four argument bytes.
type fuzzOp struct{ code, a, b, c, d byte }

// decodeFuzzProgram reads the core count (1..4) and up to maxOps
// operations of five bytes each.
func decodeFuzzProgram(data []byte, maxOps int) (int, []fuzzOp) {
	if len(data) == 0 {
		return 1, nil
	}
	n := 1 + int(data[0])%4
	var ops []fuzzOp
	for rest := data[1:]; len(rest) >= 5 && len(ops) < maxOps; rest = rest[5:] {
		ops = append(ops, fuzzOp{rest[0], rest[1], rest[2], rest[3], rest[4]})
	}
	return n, ops
}

// expectedErrors is the set of (pid, call) misuses that may stop a run:
// the first misuse of every core that has one in the failing superstep
// (cores race to report), or the one agreement failure found at its sync.
type expectedErrors struct {
	superstep int
	calls     map[int]string // pid -> call
}

func (e *expectedErrors) add(pid int, call string) {
	if e.calls == nil {
		e.calls = map[int]string{}
	}
	if _, seen := e.calls[pid]; !seen {
		e.calls[pid] = call
	}
}

func (e *expectedErrors) check(t *testing.T, got *Error) {
	t.Helper()
	switch {
	case e.calls == nil && got != nil:
		t.Fatalf("unexpected misuse: core %d: %v", got.Pid, got)
	case e.calls != nil && got == nil:
		t.Fatalf("expected a misuse in superstep %d from one of %v, the run succeeded", e.superstep, e.calls)
	case got != nil:
		if e.calls[got.Pid] != got.Call || got.Superstep != e.superstep {
			t.Fatalf("misuse from core %d: %v; expected one of %v in superstep %d", got.Pid, got, e.calls, e.superstep)
		}
	}
}

// ---------------------------------------------------------------------
// Registrations and DRMA.

const (
	fuzzVars   = 4                      // variables per core
	fuzzVarCap = 72                     // bytes each variable owns
	fuzzGuard  = 16                     // unowned bytes around each variable
	fuzzStride = fuzzVarCap + fuzzGuard // distance between variables
	fuzzMem    = fuzzGuard + fuzzVars*fuzzStride
	fuzzGetCap = 96 // bytes of each core's bsp_get destination
	fuzzMaxOps = 48
)

// Registration ops (code % 8).
const (
	regOpPush = iota
	regOpPop
	regOpPut
	regOpGet
	regOpHPPut
	regOpSync
	regOpSync2
	regOpPushOne // only one core pushes: the counts disagree
)

// regArgs are an operation's arguments as seen by core pid of n.
type regArgs struct {
	v      int // variable (address) index on the calling core
	size   int // push: registered size; put/get: bytes
	target int // put/get/hpput: target pid (may be n: no such core)
	offset int
	skip   bool // this core does not take part
}

func (op fuzzOp) regArgs(pid, n int) regArgs {
	var r regArgs
	switch op.code % 8 {
	case regOpPush, regOpPop, regOpPushOne:
		r.v = int(op.a) % fuzzVars
		if op.b&0x80 != 0 { // registrations matched by order, not by name
			r.v = (r.v + pid) % fuzzVars
		}
		r.size = int(op.b & 0x3f)
		if op.b&0x40 != 0 {
			r.size += pid // cores may register different sizes
		}
		r.skip = op.code%8 == regOpPushOne && pid != int(op.c)%n
	case regOpPut, regOpGet:
		r.target = int(op.a) % (n + 1)
		if op.a&0x80 != 0 {
			r.target = (pid + int(op.a)) % n
		}
		r.v, r.offset, r.size = int(op.b)%fuzzVars, int(op.c)%80, int(op.d)%80
	case regOpHPPut:
		// a permutation of the cores, so no core is written by two at once
		r.target = (pid + int(op.a)) % n
		r.v, r.offset, r.size = int(op.b)%fuzzVars, int(op.c)%80, int(op.d)%80
	}
	return r
}

// oneHPPutSourcePerCore gives all bsp_hpputs of a superstep the shift of
// its first one, so every core is written by one source only: two cores
// writing one core's memory at once is a race in the program (its result
// depends on timing), not something the engine can make deterministic.
func oneHPPutSourcePerCore(ops []fuzzOp) {
	shift := -1
	for i := range ops {
		switch ops[i].code % 8 {
		case regOpSync, regOpSync2:
			shift = -1
		case regOpHPPut:
			if shift < 0 {
				shift = int(ops[i].a)
			}
			ops[i].a = byte(shift)
		}
	}
}

// fuzzPattern is the data core pid writes with operation i.
func fuzzPattern(pid, i, nbytes int) []byte {
	b := make([]byte, nbytes)
	for k := range b {
		b[k] = byte(pid*37 + i*11 + k*3 + 1)
	}
	return b
}

func initialMem(pid int) []byte {
	b := make([]byte, fuzzMem)
	for k := range b {
		b[k] = byte(0xA5 ^ pid ^ k)
	}
	return b
}

// regCore is what the model knows of one core.
type regCore struct {
	mem     []byte
	synced  []byte // mem at the last sync
	getBuf  []byte
	inForce []modelReg // in push order
	pushes  []modelReg
	pops    []int // ids
	gets    []modelGet
	failed  bool
}

// modelReg is a registration: id numbers pushes in the order all cores
// make them, so a put names the same id on every core.
type modelReg struct{ id, v, size int }

type modelGet struct{ src, v, offset, size int }

type modelPut struct {
	src, dst, v, offset int
	data                []byte
}

// newest is the id of the newest registration of v not already withdrawn
// in this superstep, or -1.
func (rc *regCore) newest(v int, skipPending bool) int {
	for i := len(rc.inForce) - 1; i >= 0; i-- {
		r := rc.inForce[i]
		if r.v == v && !(skipPending && slices.Contains(rc.pops, r.id)) {
			return r.id
		}
	}
	return -1
}

func (rc *regCore) byID(id int) modelReg {
	for _, r := range rc.inForce {
		if r.id == id {
			return r
		}
	}
	panic("model: registration not in force")
}

func varAt(mem []byte, v int) []byte {
	return mem[fuzzGuard+v*fuzzStride : fuzzGuard+v*fuzzStride+fuzzVarCap+fuzzGuard]
}

// modelRegistrations runs the program sequentially and returns every
// core's final memory, get buffer and registration count, and the misuse
// that must stop the run.
func modelRegistrations(n int, ops []fuzzOp) ([]*regCore, expectedErrors) {
	cores := make([]*regCore, n)
	for pid := range cores {
		cores[pid] = &regCore{mem: initialMem(pid), synced: initialMem(pid), getBuf: make([]byte, fuzzGetCap)}
	}
	nextID, superstep := 0, 0
	var puts []modelPut
	var exp expectedErrors
	exp.superstep = 0
	for i, op := range ops {
		code := op.code % 8
		if code == regOpSync || code == regOpSync2 {
			if exp.calls != nil {
				return cores, exp
			}
			if failure := regAgreement(cores); failure != nil {
				exp.add(failure.pid, failure.call)
				return cores, exp
			}
			applyRegSync(cores, puts, &nextID)
			puts = puts[:0]
			superstep++
			exp.superstep = superstep
			continue
		}
		for pid, rc := range cores {
			if rc.failed {
				continue
			}
			args := op.regArgs(pid, n)
			call := modelRegOp(cores, pid, i, op, args, &puts)
			if call != "" {
				rc.failed = true
				exp.add(pid, call)
			}
		}
	}
	return cores, exp
}

// modelRegOp carries out op on core pid; it returns the call name when
// the op is a misuse.
func modelRegOp(cores []*regCore, pid, i int, op fuzzOp, args regArgs, puts *[]modelPut) string {
	rc := cores[pid]
	n := len(cores)
	switch op.code % 8 {
	case regOpPush, regOpPushOne:
		if !args.skip {
			rc.pushes = append(rc.pushes, modelReg{v: args.v, size: args.size})
		}
	case regOpPop:
		id := rc.newest(args.v, true)
		if id < 0 {
			return "bsp_pop_reg"
		}
		rc.pops = append(rc.pops, id)
	case regOpPut, regOpGet, regOpHPPut:
		call := map[byte]string{regOpPut: "bsp_put", regOpGet: "bsp_get", regOpHPPut: "bsp_hpput"}[op.code%8]
		if args.target >= n {
			return call
		}
		id := rc.newest(args.v, false)
		if id < 0 {
			return call
		}
		reg := cores[args.target].byID(id)
		if args.offset+args.size > reg.size {
			return call
		}
		switch op.code % 8 {
		case regOpPut:
			*puts = append(*puts, modelPut{src: pid, dst: args.target, v: reg.v, offset: args.offset, data: fuzzPattern(pid, i, args.size)})
		case regOpGet:
			rc.gets = append(rc.gets, modelGet{src: args.target, v: reg.v, offset: args.offset, size: args.size})
		case regOpHPPut:
			copy(varAt(cores[args.target].mem, reg.v)[args.offset:], fuzzPattern(pid, i, args.size))
		}
	}
	return ""
}

type agreementFailure struct {
	pid  int
	call string
}

// regAgreement is the check at a sync: every core pushed as many
// registrations and withdrew the same ones as core 0.
func regAgreement(cores []*regCore) *agreementFailure {
	ref := cores[0]
	for pid, rc := range cores[1:] {
		if len(rc.pushes) != len(ref.pushes) {
			return &agreementFailure{pid + 1, "bsp_push_reg"}
		}
		a, b := slices.Sorted(slices.Values(rc.pops)), slices.Sorted(slices.Values(ref.pops))
		if !slices.Equal(a, b) {
			return &agreementFailure{pid + 1, "bsp_pop_reg"}
		}
	}
	return nil
}

// applyRegSync is a successful bsp_sync: gets read the values from before
// the puts, puts land by source pid then issue order, then registrations
// change.
func applyRegSync(cores []*regCore, puts []modelPut, nextID *int) {
	results := make([][]byte, len(cores))
	for pid, rc := range cores {
		for _, g := range rc.gets {
			src := varAt(cores[g.src].mem, g.v)[g.offset : g.offset+g.size]
			results[pid] = append(results[pid], src...)
		}
	}
	for pid, rc := range cores {
		off := 0
		for _, g := range rc.gets {
			copy(rc.getBuf, results[pid][off:off+g.size])
			off += g.size
		}
		rc.gets = nil
	}
	slices.SortStableFunc(puts, func(x, y modelPut) int { return x.src - y.src })
	for _, p := range puts {
		copy(varAt(cores[p.dst].mem, p.v)[p.offset:], p.data)
	}
	for _, rc := range cores {
		rc.inForce = slices.DeleteFunc(rc.inForce, func(r modelReg) bool { return slices.Contains(rc.pops, r.id) })
		rc.pops = nil
	}
	for k := range cores[0].pushes {
		for _, rc := range cores {
			r := rc.pushes[k]
			r.id = *nextID
			rc.inForce = append(rc.inForce, r)
		}
		*nextID++
	}
	for _, rc := range cores {
		rc.pushes = nil
		rc.synced = slices.Clone(rc.mem)
	}
}

// runRegistrations runs the program on the engine and returns every
// core's memory, get buffer and registration count.
func runRegistrations(t *testing.T, n int, ops []fuzzOp) ([][]byte, [][]byte, []int, *Error) {
	m := newTestMachine(t, n)
	mems := make([][]byte, n)
	getBufs := make([][]byte, n)
	regs := make([]int, n)
	for pid := range mems {
		mems[pid] = initialMem(pid)
		getBufs[pid] = make([]byte, fuzzGetCap)
	}
	err := spmd(t, m, func(k kcore) {
		pid := k.Pid()
		mem := mems[pid]
		varPtr := func(v int) unsafe.Pointer { return unsafe.Pointer(&varAt(mem, v)[0]) }
		for i, op := range ops {
			args := op.regArgs(pid, n)
			var err *Error
			switch op.code % 8 {
			case regOpSync, regOpSync2:
				if !k.Sync() {
					return
				}
			case regOpPush, regOpPushOne:
				if !args.skip {
					err = k.PushReg(varPtr(args.v), args.size)
				}
			case regOpPop:
				err = k.PopReg(varPtr(args.v))
			case regOpPut:
				src := fuzzPattern(pid, i, args.size)
				err = k.Put(args.target, unsafe.Pointer(unsafe.SliceData(src)), varPtr(args.v), args.offset, args.size)
				clear(src) // the put copied it already
			case regOpGet:
				err = k.Get(args.target, varPtr(args.v), args.offset, unsafe.Pointer(&getBufs[pid][0]), args.size)
			case regOpHPPut:
				src := fuzzPattern(pid, i, args.size)
				err = k.HPPut(args.target, unsafe.Pointer(unsafe.SliceData(src)), varPtr(args.v), args.offset, args.size)
			}
			if !k.ok(err) {
				return
			}
		}
		regs[pid] = k.Registrations()
	})
	return mems, getBufs, regs, err
}

func FuzzRegistrations(f *testing.F) {
	op := func(code, a, b, c, d byte) []byte { return []byte{code, a, b, c, d} }
	prog := func(n byte, ops ...[]byte) []byte { return append([]byte{n}, slices.Concat(ops...)...) }
	// push 2 vars, put/get/hpput in range, pop, reuse slots
	f.Add(prog(3,
		op(regOpPush, 0, 40, 0, 0), op(regOpPush, 1, 0x80|20, 0, 0), op(regOpSync, 0, 0, 0, 0),
		op(regOpPut, 0x81, 0, 3, 30), op(regOpGet, 2, 1, 0, 16), op(regOpHPPut, 1, 0, 8, 8), op(regOpSync, 0, 0, 0, 0),
		op(regOpPop, 0, 0, 0, 0), op(regOpPush, 2, 0x40|10, 0, 0), op(regOpSync, 0, 0, 0, 0),
		op(regOpPut, 1, 2, 0, 11), op(regOpPut, 0, 1, 4, 4)))
	// the same address pushed twice: the newest registration wins
	f.Add(prog(2, op(regOpPush, 3, 8, 0, 0), op(regOpSync, 0, 0, 0, 0), op(regOpPush, 3, 60, 0, 0),
		op(regOpSync, 0, 0, 0, 0), op(regOpPut, 1, 3, 50, 10), op(regOpPop, 3, 0, 0, 0), op(regOpSync, 0, 0, 0, 0),
		op(regOpPut, 0, 3, 0, 8)))
	// out of range: one byte beyond the size core 1 registered
	f.Add(prog(2, op(regOpPush, 0, 0x40|16, 0, 0), op(regOpSync, 0, 0, 0, 0), op(regOpPut, 1, 0, 10, 7)))
	// unregistered, nonexistent pid, pop of nothing
	f.Add(prog(3, op(regOpPut, 0, 1, 0, 4)))
	f.Add(prog(3, op(regOpPush, 0, 8, 0, 0), op(regOpSync, 0, 0, 0, 0), op(regOpGet, 3, 0, 0, 4)))
	f.Add(prog(1, op(regOpPop, 2, 0, 0, 0)))
	// registrations that disagree between cores
	f.Add(prog(4, op(regOpPushOne, 0, 8, 2, 0), op(regOpSync, 0, 0, 0, 0)))
	f.Add(prog(2, op(regOpPush, 0, 8, 0, 0), op(regOpPush, 1, 8, 0, 0), op(regOpSync, 0, 0, 0, 0),
		op(regOpPop, 0, 0x80, 0, 0), op(regOpSync, 0, 0, 0, 0)))
	f.Fuzz(func(t *testing.T, data []byte) {
		n, ops := decodeFuzzProgram(data, fuzzMaxOps)
		ops = append(ops, fuzzOp{code: regOpSync}) // the run ends with a sync
		oneHPPutSourcePerCore(ops)
		want, exp := modelRegistrations(n, ops)
		mems, getBufs, regs, err := runRegistrations(t, n, ops)
		exp.check(t, err)
		for pid := range n {
			// When a misuse stops the run, a core released from the last
			// barrier may see the stop and leave at once (as in the C
			// scheduler), so the bsp_hpputs it would have made in the
			// failing superstep are all made or none is.
			if !bytes.Equal(mems[pid], want[pid].mem) && (err == nil || !bytes.Equal(mems[pid], want[pid].synced)) {
				t.Fatalf("core %d memory differs from the model\n got %s\nwant %s", pid, dumpMem(mems[pid]), dumpMem(want[pid].mem))
			}
			if !bytes.Equal(getBufs[pid], want[pid].getBuf) {
				t.Fatalf("core %d get buffer differs from the model\n got %x\nwant %x", pid, getBufs[pid], want[pid].getBuf)
			}
			if err == nil && regs[pid] != len(want[pid].inForce) {
				t.Fatalf("core %d has %d registrations, the model %d", pid, regs[pid], len(want[pid].inForce))
			}
		}
	})
}

func dumpMem(mem []byte) string {
	var s strings.Builder
	for v := range fuzzVars {
		fmt.Fprintf(&s, "\n  var %d: %x", v, varAt(mem, v))
	}
	return s.String()
}

// ---------------------------------------------------------------------
// Messages (BSMP).

// Message ops (code % 6).
const (
	msgOpSetTag = iota
	msgOpSend
	msgOpSend2
	msgOpDrain
	msgOpSync
	msgOpQSize
)

const (
	fuzzTagCap     = 16 // bytes of the tag buffer (tag sizes stay below 13)
	fuzzPayloadCap = 200
)

// sendArgs are a send operation's arguments on core pid of n.
type sendArgs struct {
	target, size, count int
	nilTag, nilPayload  bool
	negative            bool
}

func (op fuzzOp) sendArgs(pid, n int) sendArgs {
	s := sendArgs{
		target:     int(op.a) % (n + 1),
		size:       int(op.b) % 160,
		count:      1 + int(op.c)%4,
		nilTag:     op.c&0x80 != 0 && op.d&1 != 0,
		nilPayload: op.c&0x40 != 0 && op.d&2 != 0,
		negative:   op.d&0xfc == 0xfc,
	}
	if op.a&0x80 != 0 {
		s.target = (pid + int(op.a)) % n
	}
	if op.d&0x10 != 0 {
		s.size = (s.size + pid*7) % 160 // sizes vary by core
	}
	return s
}

// setTagArgs: the new tag size, or -1 when this core does not set one.
func (op fuzzOp) setTagArgs(pid, n int) int {
	size := int(op.a) % 13
	if pid == int(op.c)%n {
		if op.b&1 != 0 {
			size++
		}
		if op.b&2 != 0 {
			return -1
		}
	}
	return size
}

// drainArgs: how many messages to take, and how.
type drainArgs struct {
	count int
	hp    bool // bsp_hpmove instead of bsp_get_tag + bsp_move
	room  int  // bsp_move's buffer size (may be negative)
	noTag bool // bsp_get_tag is not called before bsp_move
}

func (op fuzzOp) drainArgs() drainArgs {
	return drainArgs{count: int(op.a) % 6, hp: op.b&1 != 0, room: int(op.c) - 40, noTag: op.b&2 != 0}
}

func msgTag(pid, i, rep, tagLen int) []byte {
	b := make([]byte, tagLen)
	for k := range b {
		b[k] = byte(0x80 + pid*5 + i*3 + rep + k*17)
	}
	return b
}

func msgPayload(pid, i, rep, size int) []byte {
	b := make([]byte, size)
	for k := range b {
		b[k] = byte(pid*29 + i*13 + rep*7 + k)
	}
	return b
}

type modelMsg struct{ tag, payload []byte }

type msgCore struct {
	tagsize int
	newTag  int
	queue   []modelMsg
	sent    [][]modelMsg // by destination
	log     []byte
	synced  int // length of log at the last sync
	failed  bool
}

// The observation log both the engine run and the model write.
func logQSize(log []byte, packets, nbytes int) []byte {
	return fmt.Appendf(log, "qsize %d %d\n", packets, nbytes)
}
func logTag(log []byte, status int, tagBuf []byte) []byte {
	return fmt.Appendf(log, "tag %d %x\n", status, tagBuf)
}
func logMove(log []byte, buf []byte) []byte { return fmt.Appendf(log, "move %x\n", buf) }
func logHP(log []byte, size int, tag, payload []byte) []byte {
	return fmt.Appendf(log, "hpmove %d %x %x\n", size, tag, payload)
}
func logSetTag(log []byte, old int) []byte { return fmt.Appendf(log, "settag %d\n", old) }

// Buffers start filled with a byte the engine never writes unasked.
func filled(n int) []byte { return bytes.Repeat([]byte{0xEE}, n) }

func modelMessages(n int, ops []fuzzOp) ([]*msgCore, expectedErrors) {
	cores := make([]*msgCore, n)
	for pid := range cores {
		cores[pid] = &msgCore{newTag: -1, sent: make([][]modelMsg, n)}
	}
	var exp expectedErrors
	superstep := 0
	for i, op := range ops {
		if op.code%6 == msgOpSync {
			if exp.calls != nil {
				return cores, exp
			}
			for pid, mc := range cores[1:] {
				if mc.newTag != cores[0].newTag {
					exp.add(pid+1, "bsp_set_tagsize")
					return cores, exp
				}
			}
			for dst, mc := range cores {
				mc.queue = nil
				for _, src := range cores {
					mc.queue = append(mc.queue, src.sent[dst]...)
				}
			}
			for _, mc := range cores {
				clear(mc.sent)
				if mc.newTag >= 0 {
					mc.tagsize, mc.newTag = mc.newTag, -1
				}
				mc.synced = len(mc.log)
			}
			superstep++
			exp.superstep = superstep
			continue
		}
		for pid, mc := range cores {
			if !mc.failed {
				if call := modelMsgOp(mc, pid, n, i, op); call != "" {
					mc.failed = true
					exp.add(pid, call)
				}
			}
		}
	}
	return cores, exp
}

func modelMsgOp(mc *msgCore, pid, n, i int, op fuzzOp) string {
	switch op.code % 6 {
	case msgOpSetTag:
		if size := op.setTagArgs(pid, n); size >= 0 {
			mc.log = logSetTag(mc.log, mc.tagsize)
			mc.newTag = size
		}
	case msgOpSend, msgOpSend2:
		s := op.sendArgs(pid, n)
		for rep := range s.count {
			if s.target >= n || s.negative || (s.nilTag && mc.tagsize > 0) || (s.nilPayload && s.size > 0) {
				return "bsp_send"
			}
			mc.sent[s.target] = append(mc.sent[s.target], modelMsg{msgTag(pid, i, rep, mc.tagsize), msgPayload(pid, i, rep, s.size)})
		}
	case msgOpQSize:
		total := 0
		for _, m := range mc.queue {
			total += len(m.payload)
		}
		mc.log = logQSize(mc.log, len(mc.queue), total)
	case msgOpDrain:
		d := op.drainArgs()
		for range d.count {
			if d.hp {
				if len(mc.queue) == 0 {
					mc.log = logHP(mc.log, -1, nil, nil)
					continue
				}
				m := mc.queue[0]
				mc.queue = mc.queue[1:]
				mc.log = logHP(mc.log, len(m.payload), m.tag[:min(len(m.tag), mc.tagsize)], m.payload)
				continue
			}
			tagBuf, buf := filled(fuzzTagCap), filled(fuzzPayloadCap)
			if !d.noTag {
				status := -1
				if len(mc.queue) > 0 {
					m := mc.queue[0]
					status = len(m.payload)
					copy(tagBuf, m.tag[:min(len(m.tag), mc.tagsize)])
				}
				mc.log = logTag(mc.log, status, tagBuf)
			}
			if len(mc.queue) > 0 {
				m := mc.queue[0]
				mc.queue = mc.queue[1:]
				copy(buf, m.payload[:min(len(m.payload), max(d.room, 0))])
			}
			mc.log = logMove(mc.log, buf)
		}
	}
	return ""
}

func runMessages(t *testing.T, n int, ops []fuzzOp) ([][]byte, *Error) {
	m := newTestMachine(t, n)
	logs := make([][]byte, n)
	err := spmd(t, m, func(k kcore) {
		pid := k.Pid()
		log := &logs[pid]
		for i, op := range ops {
			var err *Error
			switch op.code % 6 {
			case msgOpSync:
				if !k.Sync() {
					return
				}
			case msgOpSetTag:
				if size := op.setTagArgs(pid, n); size >= 0 {
					var old int
					old, err = k.SetTagsize(size)
					*log = logSetTag(*log, old)
				}
			case msgOpSend, msgOpSend2:
				err = fuzzSends(k, op.sendArgs(pid, n), i)
			case msgOpQSize:
				packets, nbytes := k.QSize()
				*log = logQSize(*log, packets, nbytes)
			case msgOpDrain:
				fuzzDrain(k, op.drainArgs(), log)
			}
			if !k.ok(err) {
				return
			}
		}
	})
	return logs, err
}

func fuzzSends(k kcore, s sendArgs, i int) *Error {
	for rep := range s.count {
		tag := msgTag(k.Pid(), i, rep, k.Tagsize())
		payload := msgPayload(k.Pid(), i, rep, s.size)
		tagPtr, payloadPtr := unsafe.Pointer(unsafe.SliceData(tag)), unsafe.Pointer(unsafe.SliceData(payload))
		if s.nilTag {
			tagPtr = nil
		}
		if s.nilPayload {
			payloadPtr = nil
		}
		size := s.size
		if s.negative {
			size = -1 - size
		}
		if err := k.Send(s.target, tagPtr, payloadPtr, size); err != nil {
			return err
		}
		clear(tag) // copied at the call
		clear(payload)
	}
	return nil
}

func fuzzDrain(k kcore, d drainArgs, log *[]byte) {
	for range d.count {
		if d.hp {
			// A message sent before a tag size change carries its old
			// tag size; a program reads at most that many tag bytes.
			next, _ := k.comm.queue.peek()
			tag, payload, size := k.HPMove()
			if size < 0 {
				*log = logHP(*log, size, nil, nil)
				continue
			}
			*log = logHP(*log, size, bytesAt(tag, min(next.tagLen, k.Tagsize())), bytesAt(payload, size))
			continue
		}
		tagBuf, buf := filled(fuzzTagCap), filled(fuzzPayloadCap)
		if !d.noTag {
			status := k.GetTag(unsafe.Pointer(&tagBuf[0]))
			*log = logTag(*log, status, tagBuf)
		}
		k.Move(unsafe.Pointer(&buf[0]), d.room)
		*log = logMove(*log, buf)
	}
}

func FuzzMessages(f *testing.F) {
	op := func(code, a, b, c, d byte) []byte { return []byte{code, a, b, c, d} }
	prog := func(n byte, ops ...[]byte) []byte { return append([]byte{n}, slices.Concat(ops...)...) }
	sync := op(msgOpSync, 0, 0, 0, 0)
	// all-to-all with a 4-byte tag, then drain with short and long buffers
	f.Add(prog(3, op(msgOpSetTag, 4, 0, 0, 0), sync,
		op(msgOpSend, 0x80, 10, 2, 0x10), op(msgOpSend, 0x81, 0, 1, 0), op(msgOpSend, 0x82, 150, 0, 0), sync,
		op(msgOpQSize, 0, 0, 0, 0), op(msgOpDrain, 2, 0, 45, 0), op(msgOpDrain, 5, 1, 0, 0), op(msgOpDrain, 1, 0, 0, 0),
		op(msgOpQSize, 0, 0, 0, 0), op(msgOpSend, 0, 3, 3, 0), sync, op(msgOpDrain, 5, 2, 250, 0)))
	// tag size changed while messages with the old size are queued
	f.Add(prog(2, op(msgOpSetTag, 12, 0, 0, 0), sync, op(msgOpSend, 1, 7, 0, 0), op(msgOpSetTag, 2, 0, 0, 0), sync,
		op(msgOpDrain, 1, 0, 60, 0), op(msgOpDrain, 1, 1, 0, 0), op(msgOpSend, 0, 5, 0, 0), op(msgOpSetTag, 9, 0, 0, 0),
		sync, op(msgOpDrain, 3, 0, 41, 0)))
	// empty queue, zero tag size, zero-size payloads
	f.Add(prog(4, op(msgOpDrain, 2, 0, 0, 0), op(msgOpDrain, 2, 1, 0, 0), op(msgOpSend, 0x80, 0, 0, 0), sync,
		op(msgOpQSize, 0, 0, 0, 0), op(msgOpDrain, 3, 1, 0, 0)))
	// misuse: no such core, NULL tag, NULL payload, negative size, tag sizes disagree
	f.Add(prog(2, op(msgOpSend, 2, 1, 0, 0)))
	f.Add(prog(2, op(msgOpSetTag, 4, 0, 0, 0), sync, op(msgOpSend, 1, 1, 0x80, 1)))
	f.Add(prog(2, op(msgOpSend, 1, 9, 0x40, 2)))
	f.Add(prog(2, op(msgOpSend, 1, 9, 0, 0xfc)))
	f.Add(prog(3, op(msgOpSetTag, 4, 1, 2, 0), sync))
	f.Add(prog(3, op(msgOpSetTag, 4, 2, 1, 0), sync))
	f.Fuzz(func(t *testing.T, data []byte) {
		n, ops := decodeFuzzProgram(data, fuzzMaxOps)
		ops = append(ops, fuzzOp{code: msgOpSync}) // the run ends with a sync
		want, exp := modelMessages(n, ops)
		logs, err := runMessages(t, n, ops)
		exp.check(t, err)
		for pid := range n {
			// a core may leave at once when the run is stopped (see FuzzRegistrations)
			if !bytes.Equal(logs[pid], want[pid].log) && (err == nil || !bytes.Equal(logs[pid], want[pid].log[:want[pid].synced])) {
				t.Fatalf("core %d observed\n%s\nthe model\n%s", pid, logs[pid], want[pid].log)
			}
		}
	})
}
