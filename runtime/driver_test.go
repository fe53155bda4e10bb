package runtime

import (
	"sync"
	"testing"
	"unsafe"

	"libebsp/emesh"
)

// goBarrier is a cyclic barrier for the pure-Go test driver (the library
// itself blocks cores in the C shim).
type goBarrier struct {
	mu      sync.Mutex
	cond    *sync.Cond
	n, seen int
	gen     int
}

func newGoBarrier(n int) *goBarrier {
	b := &goBarrier{n: n}
	b.cond = sync.NewCond(&b.mu)
	return b
}

func (b *goBarrier) wait() {
	b.mu.Lock()
	defer b.mu.Unlock()
	gen := b.gen
	b.seen++
	if b.seen == b.n {
		b.seen = 0
		b.gen++
		b.cond.Broadcast()
		return
	}
	for gen == b.gen {
		b.cond.Wait()
	}
}

// testCore is what a kernel sees in the Go test driver.
type testCore struct {
	*Core
	barrier *goBarrier
}

// Sync runs bsp_sync's step protocol exactly as capi/core_api.c does.
func (tc testCore) Sync() {
	for step := 0; ; {
		step = tc.SyncStep(step)
		if step == 0 {
			return
		}
		tc.barrier.wait()
	}
}

// runSPMD begins n cores on a fresh machine and runs kernel on each, one
// goroutine per core, like one ebsp_spmd.
func runSPMD(t testing.TB, n int, kernel func(c testCore)) *Machine {
	t.Helper()
	m := NewMachine(emesh.Mesh{Rows: 1, Cols: n})
	m.kernel = Kernel{Name: "test", Func: unsafe.Pointer(m)}
	m.state = HostInitialized
	if _, err := m.Begin(n); err != nil {
		t.Fatal(err)
	}
	runAgain(t, m, kernel)
	return m
}

// runAgain is another ebsp_spmd on the same machine.
func runAgain(t testing.TB, m *Machine, kernel func(c testCore)) {
	t.Helper()
	if err := m.StartRun(); err != nil {
		t.Fatal(err)
	}
	b := newGoBarrier(m.Nprocs())
	var wg sync.WaitGroup
	for pid := 0; pid < m.Nprocs(); pid++ {
		wg.Add(1)
		go func(c *Core) {
			defer wg.Done()
			if err := c.Begin(); err != nil {
				t.Error(err)
			}
			kernel(testCore{c, b})
			if wait, err := c.End(); err != nil {
				t.Error(err)
			} else if wait {
				b.wait()
			}
		}(m.Core(pid))
	}
	wg.Wait()
	m.FinishRun()
}
