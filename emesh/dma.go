package emesh

import (
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// DMA is one core's DMA engine (EBSP drives channel E_DMA_1 with a chain
// of descriptors): transfers complete one after another, in the order they
// were pushed, each no earlier than the cost model says (dma_model.go),
// timed from its push or from the end of the transfer before it, whichever
// is later.
//
// Completion is deterministic. A transfer's bytes are copied only when the
// core waits for it (or for a later transfer of the chain) once its time
// has come, or when the core reaches a synchronisation (capi: any barrier,
// the end of its kernel) or the run ends. Nothing copies behind the core's
// back, so a kernel that reads a destination before ebsp_dma_wait sees the
// old bytes every time, however long it computed; on the chip it would see
// them until the transfer's modelled end and a mixture after, which is a
// race a correct program does not have.
//
// Times are on the monotonic wall clock, the clock ebsp_raw_time and
// bsp_time read: the emulated core has no other notion of time, and so a
// kernel that times its transfers measures at least the board's cost.
//
// The waiting itself happens in C (faces/ebsp/mem.c): Run copies what is due
// and otherwise says how long to sleep; a core thread never sleeps inside
// Go. The slot, in mmap'ed memory, lets C see without a Go call whether a
// ticket is complete and whether anything is pending. Tickets count the
// transfers pushed, from 1; ticket t is complete once Done has reached t.
type DMA struct {
	slot  *DMASlot
	mem   *Memory // classifies addresses into routes; nil: every transfer is a core write
	pid   int
	model DMAModel
	sync  bool
	clock func() int64 // ns, monotonic

	mu     sync.Mutex
	queue  []transfer // pushed and not complete, in ticket order
	issued uint32
	free   int64 // when the engine finishes the last transfer pushed
	fault  Fault // a transfer that could not be copied (TakeFault)
}

// Fault is a transfer that could not be copied: Call pushed it, Problem
// says what was wrong.
type Fault struct{ Call, Problem string }

// DMASlot is the state of a DMA engine shared with C (struct dma_slot of
// capi/mem.h; capi/twins.go checks the layouts agree): Done is the last complete ticket, Issued the
// last ticket pushed, Sync is 1 with EBSP_DMA_SYNC=1.
type DMASlot struct {
	Done   atomic.Uint32
	Issued atomic.Uint32
	Sync   uint32
	_      [52]byte // one cache line per engine
}

type transfer struct {
	dst, src unsafe.Pointer
	n        int
	ticket   uint32
	due      int64  // clock time of completion, per the model
	copied   bool   // synchronous engines copy at the push
	call     string // the call that pushed it: its ends are the program's, checked when copied
}

var epoch = time.Now()

// MonotonicNanos is the engine's clock: nanoseconds since the package was
// initialised, on the monotonic clock.
func MonotonicNanos() int64 { return int64(time.Since(epoch)) }

// newDMA makes core pid's engine publishing into slot.
func newDMA(slot *DMASlot, mem *Memory, pid int, cfg MemoryConfig) *DMA {
	d := &DMA{slot: slot, mem: mem, pid: pid, model: cfg.DMA, sync: cfg.DMASync, clock: MonotonicNanos}
	d.issued = slot.Done.Load()
	slot.Issued.Store(d.issued)
	if cfg.DMASync {
		slot.Sync = 1
	}
	return d
}

// Slot is the engine's shared state, for waiting on it from C.
func (d *DMA) Slot() unsafe.Pointer { return unsafe.Pointer(d.slot) }

// SetClock replaces the engine's clock (tests).
func (d *DMA) SetClock(clock func() int64) {
	d.mu.Lock()
	d.clock = clock
	d.mu.Unlock()
}

// Push queues a copy of n bytes from src to dst and returns its ticket
// (never 0: 0 means "no transfer" in a DMA handle). Only the owning core
// pushes, so tickets complete in the order they are issued. Both ends are
// the library's own memory; PushChecked is for ends a program gave.
func (d *DMA) Push(dst, src unsafe.Pointer, n int) uint32 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.push(transfer{dst: dst, src: src, n: n})
}

// PushChecked is Push for a transfer whose ends a program gave to call
// (e.g. "ebsp_dma_push"): an end that starts in an emulated memory must
// lie inside it, and an end outside them (host memory: kernel globals and
// stacks) must be readable (the source) or writable (the destination),
// now and again when it is copied. A bad transfer is not queued:
// PushChecked returns ticket 0 and what is wrong, e.g. "cannot read 16
// bytes of the source at 0x10: no readable memory there". With
// EBSP_DMA_SYNC=1 it also returns the fault of the copy.
func (d *DMA) PushChecked(call string, dst, src unsafe.Pointer, n int) (uint32, string) {
	if problem := d.checkEnd(src, n, false); problem != "" {
		return 0, problem
	}
	if problem := d.checkEnd(dst, n, true); problem != "" {
		return 0, problem
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	ticket := d.push(transfer{dst: dst, src: src, n: n, call: call})
	return ticket, d.takeFault().Problem
}

// checkEnd checks one end of a transfer a program gave.
func (d *DMA) checkEnd(p unsafe.Pointer, n int, write bool) (problem string) {
	what := "the source"
	if write {
		what = "the destination"
	}
	if d.mem != nil {
		if inside, problem := d.mem.overrun(p, n, what); inside {
			return problem
		}
	}
	if bad := CheckUser(p, n, write); bad != nil {
		return bad.Describe(what)
	}
	return ""
}

// push queues t; d.mu is held.
func (d *DMA) push(t transfer) uint32 {
	d.issued++
	if d.issued == 0 { // tickets compare across the wrap; only 0 itself is reserved
		d.issued = 1
	}
	start := max(d.clock(), d.free)
	d.free = start + d.model.Nanos(t.n, d.route(t.dst, t.src))
	t.ticket, t.due = d.issued, d.free
	if d.sync {
		d.copyTransfer(t)
		t.copied = true
	}
	d.queue = append(d.queue, t)
	d.slot.Issued.Store(d.issued)
	return t.ticket
}

// PushNow is Push; it remains for callers that wait for the transfer at
// once.
func (d *DMA) PushNow(dst, src unsafe.Pointer, n int) uint32 { return d.Push(dst, src, n) }

// route tells the path of a transfer by where its ends lie. Memory that is
// in no arena (kernel globals and stacks, which live in host memory) counts
// as the pushing core's own.
func (d *DMA) route(dst, src unsafe.Pointer) Route {
	if d.mem == nil {
		return RouteCoreWrite
	}
	switch {
	case d.mem.InExt(src):
		return RouteExtRead
	case d.mem.InExt(dst):
		return RouteExtWrite
	}
	if owner, ok := d.mem.LocalOwner(src, 0); ok && owner != d.pid {
		return RouteCoreRead
	}
	return RouteCoreWrite
}

// Done tells whether transfer ticket (and so every earlier one) is complete.
func (d *DMA) Done(ticket uint32) bool { return TicketDone(d.slot.Done.Load(), ticket) }

// TicketDone compares tickets across the 32-bit wrap.
func TicketDone(done, ticket uint32) bool { return int32(done-ticket) >= 0 }

// Issued is the ticket of the last transfer pushed.
func (d *DMA) Issued() uint32 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.issued
}

// Run is one step of waiting for ticket: if its time has come, the
// transfers up to it are copied, in order, and Run returns 0; otherwise it
// copies those before it that are due and returns the nanoseconds left
// until ticket's completion (the caller sleeps and calls again). A ticket
// that is complete, or was never issued, returns 0.
func (d *DMA) Run(ticket uint32) int64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.Done(ticket) || !TicketDone(d.issued, ticket) {
		return 0
	}
	now := d.clock()
	for len(d.queue) > 0 {
		t := d.queue[0]
		if !TicketDone(ticket, t.ticket) {
			return 0 // every transfer up to ticket is complete
		}
		if t.due > now {
			return d.dueOf(ticket) - now
		}
		d.complete(t)
		if d.queue = d.queue[1:]; len(d.queue) == 0 {
			d.queue = nil // let the backing array go once idle
		}
	}
	return 0
}

// dueOf is when queued ticket completes; d.mu is held.
func (d *DMA) dueOf(ticket uint32) int64 {
	for _, t := range d.queue {
		if t.ticket == ticket {
			return t.due
		}
	}
	return d.free
}

// complete copies t (unless a synchronous engine did at the push) and
// publishes its ticket; d.mu is held.
func (d *DMA) complete(t transfer) {
	if !t.copied {
		d.copyTransfer(t)
	}
	d.slot.Done.Store(t.ticket)
}

// copyTransfer copies t, unless it is a program's transfer with an end
// that can no longer be read or written (freed after the push): that one
// is recorded for TakeFault and dropped. d.mu is held.
func (d *DMA) copyTransfer(t transfer) {
	if t.n <= 0 {
		return
	}
	if t.call != "" {
		bad := CheckUser(t.src, t.n, false)
		what := "the source"
		if bad == nil {
			bad, what = CheckUser(t.dst, t.n, true), "the destination"
		}
		if bad != nil {
			if d.fault == (Fault{}) {
				d.fault = Fault{t.call, "when the transfer was copied: " + bad.Describe(what)}
			}
			return
		}
	}
	copy(unsafe.Slice((*byte)(t.dst), t.n), unsafe.Slice((*byte)(t.src), t.n))
}

// TakeFault returns, once, the transfer that could not be copied (the
// zero Fault when none).
func (d *DMA) TakeFault() Fault {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.takeFault()
}

func (d *DMA) takeFault() Fault {
	f := d.fault
	d.fault = Fault{}
	return f
}

// Wait blocks the calling goroutine until ticket is complete. For Go
// callers only (tests, draining at the end of a run); core threads wait in
// C (faces/ebsp/mem.c) with the same steps.
func (d *DMA) Wait(ticket uint32) {
	for {
		left := d.Run(ticket)
		if left <= 0 {
			return
		}
		time.Sleep(time.Duration(left))
	}
}

// Drain waits until every transfer pushed so far is complete.
func (d *DMA) Drain() { d.Wait(d.Issued()) }

// close finishes the queued transfers.
func (d *DMA) close() { d.Drain() }
