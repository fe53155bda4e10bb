package engine

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// boardMachine is a test machine with the board's (default) check level;
// lines the engine prints for a core are collected in out.
func boardMachine(t *testing.T, n int) (*Machine, *lines) {
	m := newTestMachine(t, n)
	m.SetRegistrationsAtSync(false)
	m.CommConfig(CheckBoard, 0)
	out := &lines{}
	m.SetProbes(Probes{Print: out.print})
	return m, out
}

type lines struct {
	mu   sync.Mutex
	text []string
}

func (l *lines) print(pid int, text string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.text = append(l.text, fmt.Sprintf("$%02d: %s", pid, text))
}

func TestBoardPushTakesEffectAtOnce(t *testing.T) {
	m, _ := boardMachine(t, 3)
	mem := perCore(3)
	runAgain(t, m, func(k kcore) {
		me := mem[k.Pid()]
		k.must(k.PushReg(ptr(&me.x), 0)) // nbytes is ignored
		k.must(k.PushReg(ptr(&me.arr), 8))
		k.barrier()
		v := int64(10 + k.Pid())
		k.must(k.HPPut((k.Pid()+1)%3, ptr(&v), ptr(&me.arr), 16, 8)) // beyond the 8 bytes registered
		k.must(k.Put((k.Pid()+1)%3, ptr(&v), ptr(&me.x), 0, 8))
		k.Sync()
	})
	for pid := range 3 {
		from := int64(10 + (pid+2)%3)
		assert.Equal(t, from, mem[pid].arr[2], "core %d arr[2]", pid)
		assert.Equal(t, from, mem[pid].x, "core %d x", pid)
	}
}

func TestBoardUnknownVariablePrintsAndSkips(t *testing.T) {
	m, out := boardMachine(t, 2)
	mem := perCore(2)
	runAgain(t, m, func(k kcore) {
		me := mem[k.Pid()]
		v := int64(5)
		if k.Pid() == 1 {
			err := k.Put(0, ptr(&v), ptr(&me.x), 0, 8)
			require.NotNil(t, err)
			assert.True(t, err.Soft)
			k.must(k.PopReg(ptr(&me.arr))) // never registered: silent
		}
		k.Sync()
	})
	assert.Equal(t, []string{fmt.Sprintf("$01: BSP ERROR: could not find bsp var %p", &mem[1].x)}, out.text)
	assert.Zero(t, mem[0].x)
}

func TestBoardPopIsSeenByOthersAtTheSync(t *testing.T) {
	m, _ := boardMachine(t, 2)
	mem := perCore(2)
	runAgain(t, m, func(k kcore) {
		me := mem[k.Pid()]
		k.must(k.PushReg(ptr(&me.x), 8))
		k.Sync()
		k.must(k.PopReg(ptr(&me.x)))
		k.barrier() // both popped before either puts
		v := int64(40 + k.Pid())
		// own lookups no longer find x ...
		assert.True(t, k.Put(1-k.Pid(), ptr(&v), ptr(&me.x), 0, 8).Soft)
		k.Sync()
		// ... and after the sync the slot is free for a new variable
		k.must(k.PushReg(ptr(&me.arr), 8))
		k.Sync()
		k.must(k.Put(1-k.Pid(), ptr(&v), ptr(&me.arr), 0, 8))
		k.Sync()
	})
	assert.Equal(t, int64(41), mem[0].arr[0])
	assert.Equal(t, int64(40), mem[1].arr[0])
	assert.Zero(t, mem[0].x)
}

func TestBoardEmptyRemoteSlotIsReportedWhenNotWaitable(t *testing.T) {
	m, _ := boardMachine(t, 2) // no Where probe: no core can be waited for
	mem := perCore(2)
	err := spmd(t, m, func(k kcore) {
		me := mem[k.Pid()]
		if k.Pid() == 0 {
			k.must(k.PushReg(ptr(&me.x), 8))
			v := int64(1)
			if !k.ok(k.HPPut(1, ptr(&v), ptr(&me.x), 0, 8)) {
				return
			}
		}
		k.Sync()
	})
	require.NotNil(t, err)
	assert.Contains(t, err.Error(), "bsp_hpput: core 01 has no variable in registration slot 0")
}

// A request for a slot its target has not filled yet answers NotYet while
// the target has as many barrier arrivals as the requester (it runs, or is
// still leaving the sync both passed), and is settled by the target's push
// or by its arrival at the next barrier.
func TestBoardRequestWaitsWhileTheTargetMayStillPush(t *testing.T) {
	m, _ := boardMachine(t, 2)
	var arrivals [2]atomic.Int32
	m.SetProbes(Probes{Arrivals: func(pid int) int { return int(arrivals[pid].Load()) }})
	mem := perCore(2)
	push, pushed := make(chan struct{}), make(chan struct{})
	runAgain(t, m, func(k kcore) {
		me := mem[k.Pid()]
		if k.Pid() == 1 {
			<-push
			k.must(k.PushReg(ptr(&me.x), 8))
			close(pushed)
			k.Sync()
			return
		}
		k.must(k.PushReg(ptr(&me.x), 8))
		k.must(k.PushReg(ptr(&me.arr), 64))
		v := int64(7)
		assert.Same(t, NotYet, k.HPPut(1, ptr(&v), ptr(&me.x), 0, 8))
		assert.Same(t, NotYet, k.Put(1, ptr(&v), ptr(&me.x), 0, 8))
		var w logWriter
		defer w.a.free()
		w.put(1, int64Bytes(v), ptr(&me.x), 0)
		done, err := k.DrainLog(w.a.at(0), w.a.used)
		assert.Same(t, NotYet, err)
		assert.Zero(t, done)

		close(push)
		<-pushed
		k.must(k.HPPut(1, ptr(&v), ptr(&me.x), 0, 8))
		assert.Equal(t, int64(7), mem[1].x)

		// core 1 never pushes arr: waited for until it arrives at the barrier
		w.a.reset()
		w.put(1, int64Bytes(v), ptr(&me.x), 0)
		first := w.a.used
		w.put(1, int64Bytes(v), ptr(&me.arr), 0)
		done, err = k.DrainLog(w.a.at(0), w.a.used)
		assert.Same(t, NotYet, err)
		assert.Equal(t, first, done, "the put to x is taken, the one to arr waits")
		arrivals[1].Store(1)
		err = k.HPGet(1, ptr(&me.arr), 0, ptr(&v), 8)
		require.NotNil(t, err)
		assert.Contains(t, err.Error(), "bsp_hpget: core 01 has no variable in registration slot 1")
		k.Sync()
	})
}

func TestBoardPopIsForgottenAtASyncWithoutCommunication(t *testing.T) {
	m, _ := boardMachine(t, 2)
	mem := perCore(2)
	err := spmd(t, m, func(k kcore) {
		me := mem[k.Pid()]
		k.must(k.PushReg(ptr(&me.x), 8))
		k.Sync()
		k.must(k.PopReg(ptr(&me.x)))
		k.Sync() // nothing exchanged: the pop still ends here
		if k.Pid() == 0 {
			k.must(k.PushReg(ptr(&me.arr), 8)) // slot 0 again; core 1 leaves it empty
			v := int64(9)
			if !k.ok(k.HPPut(1, ptr(&v), ptr(&me.arr), 0, 8)) {
				return
			}
		}
		k.Sync()
	})
	require.NotNil(t, err, "core 1's x is no longer registered")
	assert.Contains(t, err.Error(), "core 01 has no variable in registration slot 0")
	assert.Zero(t, mem[1].x, "the put must not land in the popped variable")
}
