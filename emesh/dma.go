package emesh

import (
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"
)

// DMA is one core's DMA engine: a queue of copies carried out one after
// another, in the order pushed, by a goroutine of its own, so the core
// computes while its transfers proceed.
//
// Why a goroutine rather than a C thread: the stream engine (runtime/, pure
// Go) pushes transfers itself, the engine can be unit-tested with the race
// detector, and a thousand idle goroutines cost nothing where a thousand
// extra OS threads would not. The price is a Go call per push (~100 ns),
// small next to a transfer.
//
// Completion is published in a DMASlot in mmap'ed memory, so the C side
// waits on it with sched_yield and futex without calling into Go (a core
// thread must never block inside a Go call). Tickets count the transfers
// pushed, from 1; ticket t is complete once the slot's Done has reached t.
type DMA struct {
	slot *DMASlot
	sync bool

	mu     sync.Mutex
	cond   *sync.Cond // signalled when Done advances, for Go-side waiters
	queue  []transfer
	busy   bool // a transfer is being copied (by the worker or a helper)
	issued uint32
	wake   chan struct{}
	stop   chan struct{}
	exited chan struct{}
	hold   chan struct{} // test hook: when non-nil the worker waits on it before each copy
}

// DMASlot is the completion word of a DMA engine, shared with C (capi's
// mem_dma_wait reads the same layout): Done is the last completed ticket,
// Waiters counts C threads sleeping on the Done futex.
type DMASlot struct {
	Done    atomic.Uint32
	Waiters atomic.Uint32
	_       [56]byte // one cache line per engine
}

type transfer struct {
	dst, src unsafe.Pointer
	n        int
	ticket   uint32
}

// newDMA starts an engine publishing into slot; synchronous engines copy
// inside Push (EBSP_DMA_SYNC=1, for debugging).
func newDMA(slot *DMASlot, synchronous bool) *DMA {
	d := &DMA{slot: slot, sync: synchronous, wake: make(chan struct{}, 1),
		stop: make(chan struct{}), exited: make(chan struct{})}
	d.cond = sync.NewCond(&d.mu)
	d.issued = slot.Done.Load()
	if synchronous {
		close(d.exited)
	} else {
		go d.work()
	}
	return d
}

// Slot is the engine's completion word, for waiting on it from C.
func (d *DMA) Slot() unsafe.Pointer { return unsafe.Pointer(d.slot) }

// Synchronous reports whether transfers finish inside Push.
func (d *DMA) Synchronous() bool { return d.sync }

// PushNow is Push for a transfer the caller waits for at once: it is
// queued without waking the worker and carried out by the calling thread
// after those queued before it (see Help). Unless the worker is busy with
// an earlier transfer, it is complete on return.
func (d *DMA) PushNow(dst, src unsafe.Pointer, n int) uint32 {
	if d.sync {
		return d.Push(dst, src, n)
	}
	d.mu.Lock()
	d.issued++
	if d.issued == 0 {
		d.issued = 1
	}
	t := d.issued
	d.queue = append(d.queue, transfer{dst: dst, src: src, n: n, ticket: t})
	d.mu.Unlock()
	d.Help(t)
	return t
}

// Push queues a copy of n bytes from src to dst and returns its ticket
// (never 0: 0 means "no transfer" in a DMA handle). Only the owning core
// pushes, so tickets complete in the order they are issued.
func (d *DMA) Push(dst, src unsafe.Pointer, n int) uint32 {
	d.mu.Lock()
	d.issued++
	if d.issued == 0 { // tickets compare across the wrap; only 0 itself is reserved
		d.issued = 1
	}
	t := transfer{dst: dst, src: src, n: n, ticket: d.issued}
	if d.sync {
		d.mu.Unlock()
		d.complete(t)
		return t.ticket
	}
	d.enqueue(t)
	d.mu.Unlock()
	return t.ticket
}

// enqueue adds t to the queue and wakes the worker; d.mu is held.
func (d *DMA) enqueue(t transfer) {
	d.queue = append(d.queue, t)
	d.poke()
}

func (d *DMA) poke() {
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// Done tells whether transfer ticket (and so every earlier one) is complete.
func (d *DMA) Done(ticket uint32) bool { return TicketDone(d.slot.Done.Load(), ticket) }

// TicketDone compares tickets across the 32-bit wrap.
func TicketDone(done, ticket uint32) bool { return int32(done-ticket) >= 0 }

// Wait blocks the calling goroutine until ticket is complete. For Go
// callers only (tests, draining at the end of a run); core threads wait in
// C on the slot.
func (d *DMA) Wait(ticket uint32) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for !d.Done(ticket) {
		d.cond.Wait()
	}
}

// Drain waits until every transfer pushed so far is complete.
func (d *DMA) Drain() {
	d.mu.Lock()
	last := d.issued
	d.mu.Unlock()
	d.Wait(last)
}

// Issued is the ticket of the last transfer pushed.
func (d *DMA) Issued() uint32 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.issued
}

// close finishes the queued transfers and stops the worker.
func (d *DMA) close() {
	d.Drain()
	select {
	case <-d.stop:
	default:
		close(d.stop)
	}
	<-d.exited
}

func (d *DMA) work() {
	defer close(d.exited)
	for {
		select {
		case <-d.wake:
		case <-d.stop:
			return
		}
		for d.runOne(nil, 0) {
		}
	}
}

// Help is what a core does instead of sleeping when it must wait for
// ticket: it carries out the queued transfers up to ticket itself, in
// order, unless the worker is busy copying one (then the core waits for it
// as usual). The transfers stay asynchronous — they progress while the
// core computes — but a core that waits does not also pay for waking the
// worker goroutine (tens of microseconds on a loaded machine).
func (d *DMA) Help(ticket uint32) {
	for !d.Done(ticket) && d.runOne(&ticket, ticket) {
	}
}

// runOne copies the next queued transfer unless another one is being
// copied or the queue is empty (or, for a helper, ticket is done); it
// reports whether it copied one. One copy at a time keeps completion in
// order.
func (d *DMA) runOne(helping *uint32, ticket uint32) bool {
	d.mu.Lock()
	if d.busy || len(d.queue) == 0 || (helping != nil && d.Done(ticket)) {
		d.mu.Unlock()
		return false
	}
	d.busy = true
	t := d.queue[0]
	d.queue = d.queue[1:]
	hold := d.hold
	d.mu.Unlock()
	if hold != nil && helping == nil {
		<-hold
	}
	d.complete(t)
	d.mu.Lock()
	d.busy = false
	if helping != nil && len(d.queue) > 0 {
		d.poke() // the worker may have skipped these while we were busy
	}
	d.mu.Unlock()
	return true
}

// complete copies t and publishes its ticket, waking C and Go waiters.
func (d *DMA) complete(t transfer) {
	if t.n > 0 {
		copy(unsafe.Slice((*byte)(t.dst), t.n), unsafe.Slice((*byte)(t.src), t.n))
	}
	d.slot.Done.Store(t.ticket)
	if d.slot.Waiters.Load() != 0 {
		futexWakeAll(&d.slot.Done)
	}
	d.mu.Lock()
	d.cond.Broadcast()
	d.mu.Unlock()
}

const futexWakePrivate = 1 | 128 // FUTEX_WAKE | FUTEX_PRIVATE_FLAG

func futexWakeAll(word *atomic.Uint32) {
	_, _, _ = syscall.Syscall6(syscall.SYS_FUTEX, uintptr(unsafe.Pointer(word)), futexWakePrivate, 1<<31-1, 0, 0, 0)
}
