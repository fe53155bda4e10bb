package engine

import (
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"

	"libebsp/emesh"
)

// The pure-Go test driver: kernels run on goroutines, one per core, and
// bsp_sync runs the engine's steps with a barrier between them exactly as
// faces/ebsp/core_api.c does. The barrier can be stopped, as the C scheduler's is
// when a core reports misuse. (The library itself blocks cores in C.)

type stopBarrier struct {
	mu      sync.Mutex
	cond    *sync.Cond
	n, seen int
	gen     int
	stopped bool
}

func newStopBarrier(n int) *stopBarrier {
	b := &stopBarrier{n: n}
	b.cond = sync.NewCond(&b.mu)
	return b
}

// Wait returns false when the run was stopped.
func (b *stopBarrier) Wait() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.stopped {
		return false
	}
	gen := b.gen
	b.seen++
	if b.seen == b.n {
		b.seen = 0
		b.gen++
		b.cond.Broadcast()
		return true
	}
	for gen == b.gen && !b.stopped {
		b.cond.Wait()
	}
	return !b.stopped
}

func (b *stopBarrier) stop() {
	b.mu.Lock()
	b.stopped = true
	b.cond.Broadcast()
	b.mu.Unlock()
}

// commRun is one run of the driver: the first misuse found stops it.
type commRun struct {
	barrier *stopBarrier
	mu      sync.Mutex
	err     *Error
}

func (r *commRun) fail(err *Error) {
	r.mu.Lock()
	if r.err == nil {
		r.err = err
	}
	r.mu.Unlock()
	r.barrier.stop()
}

// kcore is what a test kernel sees.
type kcore struct {
	*Core
	run *commRun
	t   testing.TB
}

// Sync is bsp_sync as capi runs it; false when the run was stopped.
func (k kcore) Sync() bool {
	if syncLoop(k.Core, k.run.barrier) {
		return true
	}
	if err := k.TakeError(); err != nil {
		k.run.fail(err)
	}
	return false
}

// syncLoop is bsp_sync's loop of faces/ebsp/core_api.c, fast path included: a
// core whose pending mirror is clear (no request, no queued message:
// nothing for the engine) only waits at the barrier; if then the flags say
// that nobody communicated, the sync is over, after the steps of the
// direct requests if some core made any. False when the run was stopped
// (by a misuse: TakeError, or elsewhere).
func syncLoop(c *Core, b *stopBarrier) bool {
	engine := c.pending == nil || c.pending.Load() != 0
	step := stepPhaseA
	if engine {
		step = c.SyncStep(stepFinish)
	}
	if step < 0 || !b.Wait() {
		return false
	}
	run := c.SyncStep
	if !engine && !c.flagged(c.m.comm.flags) {
		run = c.planStep // the shim runs directPlan itself
	}
	for step = run(step); step > 0; step = run(step) {
		if !b.Wait() {
			return false
		}
	}
	if step != StepOver {
		return false
	}
	advance(c)
	return true
}

// advance is what the loop does when a sync is over: it advances the
// superstep counter (faces/ebsp/core_api.c's superstep_over).
func advance(c *Core) { c.superstep.Add(1) }

func (k kcore) barrier() bool { return k.run.barrier.Wait() }

// ok reports a misuse returned by a call and tells the kernel to leave.
func (k kcore) ok(err *Error) bool {
	if err != nil {
		k.run.fail(err)
		return false
	}
	return true
}

// must fails the test on a misuse the kernel did not expect.
func (k kcore) must(err *Error) {
	if err != nil {
		k.t.Errorf("unexpected: %v", err)
		k.run.fail(err)
	}
}

// newTestMachine is a machine after bsp_init and bsp_begin(n), with the
// default memory sizes, strict checks and BSPlib's registration rules
// (CommConfig(CheckBoard, 0) gives the board's); bsp_end runs at the end of
// the test.
func newTestMachine(t testing.TB, n int) *Machine {
	t.Helper()
	m := NewMachine(emesh.Mesh{Rows: 1, Cols: n})
	m.UseTransport(testTransport)
	m.SetRegistrationsAtSync(true)
	m.CommConfig(CheckStrict, 0)
	m.kernel = Kernel{Name: "test", Func: unsafe.Pointer(m)}
	m.state = HostInitialized
	if _, err := m.Begin(n); err != nil {
		t.Fatal(err)
	}
	shareMirrors(m)
	t.Cleanup(func() {
		if m.State() == HostBegun {
			_ = m.End()
		}
	})
	return m
}

// shareMirrors gives every core the state the C shim reads (Go memory
// here), so that Sync takes the shim's empty-sync path as bsp_sync does.
func shareMirrors(m *Machine) {
	for pid := 0; pid < m.Nprocs(); pid++ {
		m.Core(pid).Share(Mirror{Superstep: new(atomic.Int32), Tagsize: new(int32), Pending: new(atomic.Int32)})
	}
}

// spmd runs kernel on every core of m once; it returns the misuse that
// stopped the run, if any.
func spmd(t testing.TB, m *Machine, kernel func(k kcore)) *Error {
	t.Helper()
	if err := m.StartRun(); err != nil {
		t.Fatal(err)
	}
	run := &commRun{barrier: newStopBarrier(m.Nprocs())}
	var wg sync.WaitGroup
	for pid := 0; pid < m.Nprocs(); pid++ {
		wg.Add(1)
		go func(c *Core) {
			defer wg.Done()
			if err := c.Begin(); err != nil {
				t.Error(err)
			}
			kernel(kcore{c, run, t})
			if _, err := c.End(); err != nil {
				t.Error(err)
			}
			run.barrier.Wait()
		}(m.Core(pid))
	}
	wg.Wait()
	if run.err != nil {
		m.RecordAbort(run.err.Pid, "BSP ERROR", run.err.Error())
	}
	m.FinishRun()
	return run.err
}

// runAgain is one ebsp_spmd on m of a kernel that expects no misuse.
func runAgain(t testing.TB, m *Machine, kernel func(k kcore)) {
	t.Helper()
	if err := spmd(t, m, kernel); err != nil {
		t.Errorf("unexpected misuse: %v", err)
	}
}

// runSPMD begins n cores on a fresh machine and runs kernel once.
func runSPMD(t testing.TB, n int, kernel func(k kcore)) *Machine {
	t.Helper()
	m := newTestMachine(t, n)
	runAgain(t, m, kernel)
	return m
}

// ptr is the address of a Go value, as a kernel would pass it.
func ptr[T any](v *T) unsafe.Pointer { return unsafe.Pointer(v) }
