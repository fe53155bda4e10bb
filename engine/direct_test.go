package engine

import (
	"encoding/binary"
	"fmt"
	"slices"
	"sync"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The C shim's side of direct requests (capi/direct.c), faked: a kernel
// logs a put as a word to write, a get as a word to read, and the engine
// has them carried out.
type fakeDirect struct {
	mu          sync.Mutex
	puts        map[int][]fakePut
	gets        map[int][]*fakeGet
	writes      map[int]int // WritePuts calls that wrote something, by pid
	overwritten []int64     // the distinct values the puts overwrote
	sent        map[[3]int][]byte
	tally       map[[2]int]DirectTally // [pid, peer]: counted requests (statistics on)
	wired       map[[2]int][]byte      // [src, dst]: records packed for dst (DirectWire)
	apart       map[int][]wiredApart   // by src: puts whose payload stays at its source
}

type fakePut struct {
	dst *int64
	v   int64
}

type fakeGet struct {
	src, dst *int64
	staged   int64
}

func newFakeDirect(m *Machine) *fakeDirect {
	f := &fakeDirect{puts: map[int][]fakePut{}, gets: map[int][]*fakeGet{}, writes: map[int]int{}, sent: map[[3]int][]byte{},
		tally: map[[2]int]DirectTally{}, wired: map[[2]int][]byte{}, apart: map[int][]wiredApart{}}
	m.SetDirectDRMA(f)
	return f
}

func (f *fakeDirect) put(k kcore, dst *int64, v int64) {
	_, answer := k.BeginDirect(DirectPut)
	require.NotEqual(k.t, DirectRefused, answer, "direct puts allowed")
	f.mu.Lock()
	f.puts[k.Pid()] = append(f.puts[k.Pid()], fakePut{dst, v})
	f.mu.Unlock()
}

func (f *fakeDirect) get(k kcore, src, dst *int64) {
	_, answer := k.BeginDirect(DirectGet)
	require.NotEqual(k.t, DirectRefused, answer, "direct gets allowed")
	f.mu.Lock()
	f.gets[k.Pid()] = append(f.gets[k.Pid()], &fakeGet{src: src, dst: dst})
	f.mu.Unlock()
}

func (f *fakeDirect) logged(pid int) ([]fakePut, []*fakeGet) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.puts[pid], f.gets[pid]
}

func (f *fakeDirect) ReadGets(pid int) {
	_, gets := f.logged(pid)
	for _, g := range gets {
		g.staged = *g.src
	}
}

func (f *fakeDirect) WriteGets(pid int) {
	_, gets := f.logged(pid)
	for _, g := range gets {
		*g.dst = g.staged
	}
	f.mu.Lock()
	delete(f.gets, pid)
	f.mu.Unlock()
}

func (f *fakeDirect) GetsWrite(pid int, p unsafe.Pointer, n, max int) bool {
	_, gets := f.logged(pid)
	if len(gets) > max {
		return true
	}
	r := rangeAt(p, n)
	for _, g := range gets {
		if r.overlaps(rangeAt(unsafe.Pointer(g.dst), 8)) {
			return true
		}
	}
	return false
}

// wire packs a put to dst as capi/direct.c's wire_put does (record); with
// apart set, as wire_hpput does (header and source kept apart).
func (f *fakeDirect) wire(k kcore, dst int, addr *int64, v []int64, apart bool) {
	_, answer := k.BeginDirect(DirectWire)
	require.NotEqual(k.t, DirectRefused, answer, "puts to other processes allowed")
	slot := k.WireSlot(unsafe.Pointer(addr))
	require.GreaterOrEqual(k.t, slot, 0)
	payload := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v))), 8*len(v))
	header := binary.LittleEndian.AppendUint32(nil, uint32(kindPut))
	header = binary.LittleEndian.AppendUint32(header, uint32(slot))
	header = binary.LittleEndian.AppendUint32(header, 0)
	header = binary.LittleEndian.AppendUint32(header, uint32(len(payload)))
	f.mu.Lock()
	defer f.mu.Unlock()
	if apart {
		f.apart[k.Pid()] = append(f.apart[k.Pid()], wiredApart{dst, header, payload})
	} else {
		f.wired[[2]int{k.Pid(), dst}] = append(append(f.wired[[2]int{k.Pid(), dst}], header...), payload...)
	}
}

type wiredApart struct {
	dst             int
	header, payload []byte
}

func (f *fakeDirect) Wired(src int, visit func(int, []byte)) {
	f.mu.Lock()
	var got [][2]int
	for key := range f.wired {
		if key[0] == src {
			got = append(got, key)
		}
	}
	f.mu.Unlock()
	for _, key := range got {
		f.mu.Lock()
		records := f.wired[key]
		delete(f.wired, key)
		f.mu.Unlock()
		visit(key[1], records)
	}
}

func (f *fakeDirect) WiredApart(src int, visit func(int, []byte, []byte)) {
	f.mu.Lock()
	refs := f.apart[src]
	delete(f.apart, src)
	f.mu.Unlock()
	for _, r := range refs {
		visit(r.dst, r.header, r.payload)
	}
}

// count counts a request of k's to or from peer as capi/direct.c does,
// when the engine says so.
func (f *fakeDirect) count(k kcore, peer int, add func(*DirectTally)) {
	if !k.m.stats.on { // BeginDirect answers DirectCounted
		return
	}
	f.mu.Lock()
	t := f.tally[[2]int{k.Pid(), peer}]
	add(&t)
	f.tally[[2]int{k.Pid(), peer}] = t
	f.mu.Unlock()
}

func (f *fakeDirect) Tally(pid int, visit func(int, DirectTally)) {
	f.mu.Lock()
	var peers []int
	for key := range f.tally {
		if key[0] == pid {
			peers = append(peers, key[1])
		}
	}
	f.mu.Unlock()
	for _, peer := range peers {
		f.mu.Lock()
		t := f.tally[[2]int{pid, peer}]
		delete(f.tally, [2]int{pid, peer})
		f.mu.Unlock()
		visit(peer, t)
	}
}

func (f *fakeDirect) WritePuts(pid int) {
	puts, _ := f.logged(pid)
	f.mu.Lock()
	delete(f.puts, pid)
	if len(puts) > 0 {
		f.writes[pid]++
	}
	for _, p := range puts {
		if !slices.Contains(f.overwritten, *p.dst) {
			f.overwritten = append(f.overwritten, *p.dst)
		}
	}
	f.mu.Unlock()
	for _, p := range puts {
		*p.dst = p.v
	}
}

// send logs a message as capi/direct.c does: header, tag, payload, padded.
func (f *fakeDirect) send(k kcore, to int, tag, payload []byte) {
	_, answer := k.BeginDirect(DirectSend)
	require.NotEqual(k.t, DirectRefused, answer, "direct sends allowed")
	rec := binary.LittleEndian.AppendUint32(nil, uint32(len(tag)))
	rec = binary.LittleEndian.AppendUint32(rec, uint32(len(payload)))
	rec = append(append(rec, tag...), payload...)
	for len(rec)%8 != 0 {
		rec = append(rec, 0)
	}
	key := [3]int{k.Pid(), to, k.Superstep()}
	f.mu.Lock()
	f.sent[key] = append(f.sent[key], rec...)
	f.mu.Unlock()
}

func (f *fakeDirect) Sent(src, dst, step int) (unsafe.Pointer, int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	b := f.sent[[3]int{src, dst, step}]
	if len(b) == 0 {
		return nil, 0
	}
	return unsafe.Pointer(&b[0]), len(b)
}

// directMachine is a boardMachine (reg_test.go) over shared memory,
// whatever -transport says: its cores may put directly.
func directMachine(t *testing.T, n int) *Machine {
	m, _ := boardMachine(t, n)
	m.UseTransport(nil)
	return m
}

func TestDirectPutWinsOverGetOfTheSameBytes(t *testing.T) {
	const rounds = 100
	m := directMachine(t, 2)
	f := newFakeDirect(m)
	mem := perCore(2)
	require.Nil(t, spmd(t, m, func(k kcore) {
		me := mem[k.Pid()]
		me.x = 11
		k.must(k.PushReg(ptr(&me.x), 8))
		k.Sync()
		for r := range rounds {
			if k.Pid() == 0 {
				me.x = -1
				k.must(k.Get(1, ptr(&me.x), 0, ptr(&me.x), 8)) // brings 11
			} else {
				f.put(k, &mem[0].x, int64(100+r))
			}
			k.Sync()
		}
	}))
	assert.Equal(t, int64(100+rounds-1), mem[0].x)
	assert.Equal(t, rounds, f.writes[1])
	assert.Equal(t, []int64{11}, f.overwritten, "each put is written after the get's reply, over it")
}

func TestDirectPutsAloneNeedNoEngine(t *testing.T) {
	m := directMachine(t, 3)
	f := newFakeDirect(m)
	mem := perCore(3)
	pending := make([]int32, 3)
	require.Nil(t, spmd(t, m, func(k kcore) {
		me := mem[k.Pid()]
		k.must(k.PushReg(ptr(&me.x), 8))
		k.Sync()
		k.Sync() // the registration's engine sync left nothing pending
		next := (k.Pid() + 1) % 3
		f.put(k, &mem[next].x, int64(100+k.Pid()))
		pending[k.Pid()] = k.pending.Load()
		k.Sync()
	}))
	assert.Equal(t, []int32{0, 0, 0}, pending, "a direct put does not need the engine")
	for pid := range 3 {
		assert.Equal(t, int64(100+(pid+2)%3), mem[pid].x)
		assert.Equal(t, 1, f.writes[pid])
	}
	assert.Equal(t, 3, m.Core(0).Superstep())
}

func TestDirectPutsNextToAnEngineSync(t *testing.T) {
	m := directMachine(t, 2)
	f := newFakeDirect(m)
	mem := perCore(2)
	got := make([]int, 2)
	require.Nil(t, spmd(t, m, func(k kcore) {
		me := mem[k.Pid()]
		k.must(k.PushReg(ptr(&me.x), 8))
		k.Sync()
		if k.Pid() == 0 {
			f.put(k, &mem[1].x, 7) // only a direct put: the fast path's core
		} else {
			one := byte(1)
			k.must(k.Send(0, nil, ptr(&one), 1)) // the engine's core
		}
		k.Sync()
		got[k.Pid()], _ = k.QSize()
	}))
	assert.Equal(t, int64(7), mem[1].x)
	assert.Equal(t, []int{1, 0}, got)
}

func TestDirectPutsRefused(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(m *Machine)
	}{
		{"strict checks", func(m *Machine) { m.CommConfig(CheckStrict, 0) }},
		{"another transport", func(m *Machine) { m.UseTransport(NewCopyingTransport) }},
		{"no shim", func(m *Machine) { m.SetDirectDRMA(nil) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := directMachine(t, 2)
			newFakeDirect(m)
			tc.setup(m)
			allowed := make([]bool, 2)
			require.Nil(t, spmd(t, m, func(k kcore) {
				_, puts := k.BeginDirect(DirectPut)
				_, gets := k.BeginDirect(DirectGet)
				allowed[k.Pid()] = puts != DirectRefused || gets != DirectRefused
			}))
			assert.Equal(t, []bool{false, false}, allowed)
		})
	}
}

// Statistics do not change the path of a request (lest they change what
// overlapping puts leave): direct requests are counted by the shim, and
// the figures are those of the engine's path (TestStatsCountEverySuperstep):
// what a core put or sent into another of this process is counted there.
func TestStatsCountDirectRequests(t *testing.T) {
	m := directMachine(t, 3)
	f := newFakeDirect(m)
	m.SetStats(true)
	mem := perCore(3)
	require.Nil(t, spmd(t, m, func(k kcore) {
		me := mem[k.Pid()]
		k.must(k.PushReg(ptr(&me.x), 8))
		k.Sync()
		if k.Pid() == 0 { // two 8-byte puts, one into each of the others
			for _, to := range []int{1, 2} {
				f.put(k, &mem[to].x, 7)
				f.count(k, to, func(t *DirectTally) { t.Puts++; t.PutBytes += 8 })
			}
		}
		f.send(k, 0, nil, []byte{1, 2, 3, 4, 5, 6, 7, 8}) // every core sends core 0 one 8-byte message
		f.count(k, 0, func(t *DirectTally) { t.Sends++; t.SendBytes += 8 })
		k.Sync()
		var v int64
		from := (k.Pid() + 1) % 3
		f.get(k, &mem[from].x, &v)
		f.count(k, from, func(t *DirectTally) { t.Gets++; t.GetBytes += 8 })
		k.Sync()
	}))
	assertStatsOfThreeCores(t, m.Summary(), 16)
	assert.Equal(t, int64(7), mem[1].x)
}

// Two cores swap their registered words with direct gets into the words
// themselves: each get reads the value from before the sync.
func TestDirectGetsSwap(t *testing.T) {
	m := directMachine(t, 2)
	f := newFakeDirect(m)
	mem := perCore(2)
	pending := make([]int32, 2)
	require.Nil(t, spmd(t, m, func(k kcore) {
		me := mem[k.Pid()]
		me.x = int64(10 + k.Pid())
		k.must(k.PushReg(ptr(&me.x), 8))
		k.Sync()
		k.Sync()
		f.get(k, &mem[1-k.Pid()].x, &me.x)
		pending[k.Pid()] = k.pending.Load()
		k.Sync()
	}))
	assert.Equal(t, []int32{0, 0}, pending, "a direct get does not need the engine")
	assert.Equal(t, int64(11), mem[0].x)
	assert.Equal(t, int64(10), mem[1].x)
}

// A direct get and a direct put to the same bytes: the put wins, with and
// without the engine in the sync (a message makes core 2 need it).
func TestDirectPutWinsOverDirectGet(t *testing.T) {
	for _, engine := range []bool{false, true} {
		m := directMachine(t, 3)
		f := newFakeDirect(m)
		mem := perCore(3)
		require.Nil(t, spmd(t, m, func(k kcore) {
			me := mem[k.Pid()]
			me.x = int64(10 + k.Pid())
			k.must(k.PushReg(ptr(&me.x), 8))
			k.Sync()
			for r := range 50 {
				switch k.Pid() {
				case 0:
					f.get(k, &mem[1].x, &me.x)
				case 1:
					f.put(k, &mem[0].x, int64(100+r))
				case 2:
					if engine {
						one := byte(1)
						k.must(k.Send(0, nil, ptr(&one), 1))
					}
				}
				k.Sync()
			}
		}))
		assert.Equal(t, int64(149), mem[0].x, "engine %v", engine)
		assert.Equal(t, []int64{11}, f.overwritten, "engine %v: the puts overwrite the gets' values", engine)
	}
}

// Direct messages are queued by source pid, then issue order, with the
// tag of the superstep they were sent in.
func TestDirectSendsQueueInSourceOrder(t *testing.T) {
	m := directMachine(t, 3)
	f := newFakeDirect(m)
	got := make([][]string, 3)
	require.Nil(t, spmd(t, m, func(k kcore) {
		size := 2
		_, err := k.SetTagsize(size)
		k.must(err)
		k.Sync()
		for i := range 2 {
			for to := range 3 {
				f.send(k, to, []byte{byte(k.Pid()), byte(i)}, []byte(fmt.Sprintf("%d>%d#%d", k.Pid(), to, i)))
			}
		}
		k.Sync()
		n, bytes := k.QSize()
		assert.Equal(t, 6, n)
		assert.Equal(t, 6*5, bytes)
		for range n {
			var tag [2]byte
			size := k.GetTag(ptr(&tag))
			buf := make([]byte, size)
			k.Move(unsafe.Pointer(unsafe.SliceData(buf)), size)
			got[k.Pid()] = append(got[k.Pid()], fmt.Sprintf("%d%d:%s", tag[0], tag[1], buf))
		}
	}))
	assert.Equal(t, []string{"00:0>0#0", "01:0>0#1", "10:1>0#0", "11:1>0#1", "20:2>0#0", "21:2>0#1"}, got[0])
	assert.Equal(t, "21:2>2#1", got[2][5])
}

// localWorld is a transport of cores in processes of their own as far as
// direct requests go (LocalMemory, so puts to them are DirectWire), whose
// blocks are copied as over a wire, and which takes no records from the
// shim's memory (no ExternalOut): the engine packs what the shim wired.
type localWorld struct{ Transport }

func (localWorld) LocalMemory() bool { return true }

func TestWiredPutsPackedWithoutExternalOut(t *testing.T) {
	m, _ := boardMachine(t, 2)
	m.UseTransport(func(n int) Transport { return localWorld{NewCopyingTransport(n)} })
	f := newFakeDirect(m)
	got := make([][4]int64, 2)
	require.Nil(t, spmd(t, m, func(k kcore) {
		var words [4]int64
		k.must(k.PushReg(unsafe.Pointer(&words), int(unsafe.Sizeof(words))))
		k.Sync()
		other := 1 - k.Pid()
		base := int64(10 * (k.Pid() + 1))
		f.wire(k, other, &words[0], []int64{base + 1, base + 2}, false)
		f.wire(k, other, &words[0], []int64{base + 3, base + 4, base + 5, base + 6}, true) // after the records: wins
		k.Sync()
		got[k.Pid()] = words
	}))
	assert.Equal(t, [4]int64{23, 24, 25, 26}, got[0])
	assert.Equal(t, [4]int64{13, 14, 15, 16}, got[1])
}
