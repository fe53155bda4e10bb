package runtime

import (
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The C shim's side of direct puts (capi/putlog.c), faked: a kernel logs
// a put as a word to write, and the writer the engine calls writes them.
type fakePutLog struct {
	mu          sync.Mutex
	logs        map[int][]fakePut
	writes      map[int]int // writer calls that wrote something, by pid
	overwritten []int64     // the distinct values the puts overwrote
}

type fakePut struct {
	dst *int64
	v   int64
}

func newFakePutLog(m *Machine) *fakePutLog {
	f := &fakePutLog{logs: map[int][]fakePut{}, writes: map[int]int{}}
	m.SetDirectPutWriter(f.write)
	return f
}

func (f *fakePutLog) put(k kcore, dst *int64, v int64) {
	_, ok := k.BeginDirectPuts()
	require.True(k.t, ok, "direct puts allowed")
	f.mu.Lock()
	f.logs[k.Pid()] = append(f.logs[k.Pid()], fakePut{dst, v})
	f.mu.Unlock()
}

func (f *fakePutLog) write(pid int) {
	f.mu.Lock()
	log := f.logs[pid]
	delete(f.logs, pid)
	if len(log) > 0 {
		f.writes[pid]++
	}
	f.mu.Unlock()
	for _, p := range log {
		f.mu.Lock()
		if !slices.Contains(f.overwritten, *p.dst) {
			f.overwritten = append(f.overwritten, *p.dst)
		}
		f.mu.Unlock()
		*p.dst = p.v
	}
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
	f := newFakePutLog(m)
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
	f := newFakePutLog(m)
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
	f := newFakePutLog(m)
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
		{"statistics", func(m *Machine) { m.SetStats(true) }},
		{"another transport", func(m *Machine) { m.UseTransport(newCopyingTransport) }},
		{"no writer", func(m *Machine) { m.SetDirectPutWriter(nil) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := directMachine(t, 2)
			newFakePutLog(m)
			tc.setup(m)
			allowed := make([]bool, 2)
			require.Nil(t, spmd(t, m, func(k kcore) {
				_, allowed[k.Pid()] = k.BeginDirectPuts()
			}))
			assert.Equal(t, []bool{false, false}, allowed)
		})
	}
}
