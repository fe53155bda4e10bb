package emesh

import (
	"bytes"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func fill(p unsafe.Pointer, n int, v byte) {
	b := unsafe.Slice((*byte)(p), n)
	for i := range b {
		b[i] = v + byte(i)
	}
}

func view(p unsafe.Pointer, n int) []byte { return unsafe.Slice((*byte)(p), n) }

// fakeClock is a clock the test moves by hand, so the engine's timing is
// checked without reading the real one.
type fakeClock struct{ now int64 }

func (c *fakeClock) read() int64 { return c.now }

// withFakeClock puts d on a hand-moved clock; the real clock comes back
// before the memory is closed (closing drains, which must not wait on a
// clock nobody moves).
func withFakeClock(t *testing.T, d *DMA) *fakeClock {
	c := &fakeClock{now: 1000}
	d.SetClock(c.read)
	t.Cleanup(func() { d.SetClock(MonotonicNanos) })
	return c
}

func TestDMAModelTable(t *testing.T) {
	m := BoardDMA
	assert.Equal(t, uint64(2404), m.Cycles(8192, RouteCoreWrite), "the measured 8 KiB figures are reproduced")
	assert.Equal(t, uint64(9749), m.Cycles(8192, RouteCoreRead))
	assert.Equal(t, uint64(9504), m.Cycles(8192, RouteExtWrite))
	assert.Equal(t, uint64(30336), m.Cycles(8192, RouteExtRead))
	assert.Equal(t, uint64(0), m.Cycles(0, RouteExtRead))
	assert.Equal(t, m.StartupCycles+1, m.Cycles(1, RouteCoreWrite), "start-up plus at least a cycle")
	assert.Equal(t, m.StartupCycles+(30336-m.StartupCycles)*128, m.Cycles(1<<20, RouteExtRead), "linear in the size")
	assert.Equal(t, int64(50_560), m.Nanos(8192, RouteExtRead), "30336 cycles at 600 MHz")
	assert.Equal(t, uint64(0), DMAModel{}.Cycles(1<<20, RouteExtRead), "the zero model costs nothing")
	assert.Equal(t, "external read", RouteExtRead.String())
}

func TestDMARoutes(t *testing.T) {
	m := newTestMemory(t, 2, DefaultMemoryConfig)
	d := m.DMA(0)
	var global [64]byte // host memory: counts as the core's own
	own, other, ext := m.Local(0).At(0), m.Local(1).At(0), m.Ext().At(0)
	for _, c := range []struct {
		dst, src unsafe.Pointer
		want     Route
	}{
		{ext, own, RouteExtWrite},
		{own, ext, RouteExtRead},
		{m.Ext().At(64), ext, RouteExtRead},
		{other, own, RouteCoreWrite},
		{other, unsafe.Pointer(&global), RouteCoreWrite},
		{own, other, RouteCoreRead},
		{unsafe.Pointer(&global), other, RouteCoreRead},
		{ext, other, RouteExtWrite},
	} {
		assert.Equal(t, c.want, d.route(c.dst, c.src))
	}
}

// TestDMACompletesOnlyWhenDueAndWaited: the bytes move neither before the
// model's time nor, after it, before the core waits.
func TestDMACompletesOnlyWhenDueAndWaited(t *testing.T) {
	m := newTestMemory(t, 1, DefaultMemoryConfig)
	d := m.DMA(0)
	clock := withFakeClock(t, d)
	src, dst := m.Ext().At(0), m.Local(0).At(0)
	fill(src, 256, 1)
	cost := BoardDMA.Nanos(256, RouteExtRead)
	ticket := d.Push(dst, src, 256)
	assert.NotZero(t, ticket)
	assert.Equal(t, ticket, d.slot.Issued.Load())
	clock.now += 10 * cost
	assert.False(t, d.Done(ticket))
	assert.Equal(t, make([]byte, 256), view(dst, 256), "nothing copies before the wait")
	clock.now -= 10 * cost
	clock.now += cost / 2
	assert.Equal(t, cost-cost/2, d.Run(ticket), "the rest of the transfer's time")
	assert.Equal(t, make([]byte, 256), view(dst, 256), "not before its time")
	assert.False(t, d.Done(ticket))
	clock.now += cost - cost/2
	assert.Zero(t, d.Run(ticket))
	assert.True(t, d.Done(ticket))
	assert.Equal(t, view(src, 256), view(dst, 256))
	assert.Zero(t, d.Run(ticket), "complete stays complete")
}

// TestDMAChainTiming: transfers of one engine run one after another, so a
// transfer pushed while another is in flight ends its own cost after it.
func TestDMAChainTiming(t *testing.T) {
	m := newTestMemory(t, 2, DefaultMemoryConfig)
	d := m.DMA(0)
	clock := withFakeClock(t, d)
	a := BoardDMA.Nanos(1024, RouteExtRead)
	b := BoardDMA.Nanos(4096, RouteCoreWrite)
	t1 := d.Push(m.Local(0).At(0), m.Ext().At(0), 1024)
	clock.now += a / 2
	t2 := d.Push(m.Local(1).At(0), m.Local(0).At(2048), 4096)
	assert.Equal(t, a-a/2+b, d.Run(t2), "starts when the first ends")
	clock.now += a - a/2
	assert.Equal(t, b, d.Run(t2), "the first is due and copied on the way")
	assert.True(t, d.Done(t1))
	assert.False(t, d.Done(t2))
	clock.now += 10 * b
	t3 := d.Push(m.Ext().At(0), m.Local(0).At(0), 8192)
	assert.Zero(t, d.Run(t2))
	assert.Equal(t, BoardDMA.Nanos(8192, RouteExtWrite), d.Run(t3), "an idle engine starts at the push")
}

// TestDMAWaitCopiesUpToTheTicket: waiting for the second of three
// transfers copies the first two and leaves the third, although it is due.
func TestDMAWaitCopiesUpToTheTicket(t *testing.T) {
	m := newTestMemory(t, 1, DefaultMemoryConfig)
	d := m.DMA(0)
	clock := withFakeClock(t, d)
	ext := m.Ext()
	fill(ext.At(0), 64, 9)
	t1 := d.Push(ext.At(64), ext.At(0), 64)
	t2 := d.Push(ext.At(128), ext.At(64), 64)
	t3 := d.Push(ext.At(192), ext.At(128), 64)
	clock.now += 1e9
	assert.Zero(t, d.Run(t2))
	assert.True(t, d.Done(t1))
	assert.True(t, d.Done(t2))
	assert.False(t, d.Done(t3))
	assert.Equal(t, view(ext.At(0), 64), view(ext.At(128), 64))
	assert.Equal(t, make([]byte, 64), view(ext.At(192), 64), "the third waits for its own wait")
	assert.Zero(t, d.Run(t3))
	assert.Equal(t, view(ext.At(0), 64), view(ext.At(192), 64))
	assert.Zero(t, d.Run(t3+5), "a ticket never issued is nothing to wait for")
}

// TestDMAInOrder chains transfers where each reads what the previous wrote:
// only in-order completion gives the final value (real clock).
func TestDMAInOrder(t *testing.T) {
	m := newTestMemory(t, 1, DefaultMemoryConfig)
	d := m.DMA(0)
	const n, hops = 4096, 50
	fill(m.Ext().At(0), n, 7)
	var last uint32
	for i := 0; i < hops; i++ {
		last = d.Push(m.Ext().At((i+1)*n), m.Ext().At(i*n), n)
	}
	d.Wait(last)
	for i := 1; i <= hops; i++ {
		require.True(t, bytes.Equal(view(m.Ext().At(0), n), view(m.Ext().At(i*n), n)), "hop %d", i)
	}
	assert.Equal(t, last, d.Issued())
}

// TestDMASynchronousMode: EBSP_DMA_SYNC=1 copies at the push; the
// transfer's time is still waited for before it counts as complete.
func TestDMASynchronousMode(t *testing.T) {
	cfg := DefaultMemoryConfig
	cfg.ExtSize, cfg.DMASync = MinExtSize, true
	m := newTestMemory(t, 2, cfg)
	d := m.DMA(1)
	clock := withFakeClock(t, d)
	assert.True(t, d.sync)
	assert.Equal(t, uint32(1), d.slot.Sync)
	fill(m.Ext().At(0), 64, 3)
	ticket := d.Push(m.Local(1).At(0), m.Ext().At(0), 64)
	assert.Equal(t, view(m.Ext().At(0), 64), view(m.Local(1).At(0), 64), "copied when Push returns")
	assert.False(t, d.Done(ticket))
	clock.now += BoardDMA.Nanos(64, RouteExtRead)
	assert.Zero(t, d.Run(ticket))
	assert.True(t, d.Done(ticket))
}

func TestDMAZeroModel(t *testing.T) {
	m := newTestMemory(t, 1, MemoryConfig{LocalSize: DefaultLocalSize, ExtSize: MinExtSize})
	d := m.DMA(0)
	withFakeClock(t, d)
	fill(m.Ext().At(0), 64, 5)
	ticket := d.Push(m.Local(0).At(0), m.Ext().At(0), 64)
	assert.Zero(t, d.Run(ticket), "due at once, without the clock moving")
	assert.Equal(t, view(m.Ext().At(0), 64), view(m.Local(0).At(0), 64))
}

func TestTicketWrap(t *testing.T) {
	assert.True(t, TicketDone(5, 5))
	assert.False(t, TicketDone(4, 5))
	assert.True(t, TicketDone(1, 0xffffffff), "1 comes after the wrap")
	assert.False(t, TicketDone(0xffffffff, 1))
	m := newTestMemory(t, 1, DefaultMemoryConfig)
	d := m.DMA(0)
	d.mu.Lock()
	d.issued = 0xffffffff
	d.slot.Done.Store(0xffffffff)
	d.mu.Unlock()
	ticket := d.Push(m.Local(0).At(0), m.Ext().At(0), 8)
	assert.Equal(t, uint32(1), ticket, "ticket 0 is skipped")
	d.Wait(ticket)
	assert.True(t, d.Done(ticket))
}

func TestDrainAndClose(t *testing.T) {
	m, err := NewMemory(4, DefaultMemoryConfig)
	require.NoError(t, err)
	for pid := 0; pid < 4; pid++ {
		for i := 0; i < 10; i++ {
			fill(m.Ext().At(pid*80+i*8), 8, byte(pid))
			m.DMA(pid).Push(m.Local(pid).At(i*8), m.Ext().At(pid*80+i*8), 8)
		}
	}
	m.Drain()
	for pid := 0; pid < 4; pid++ {
		assert.True(t, m.DMA(pid).Done(m.DMA(pid).Issued()))
		assert.Equal(t, view(m.Ext().At(pid*80), 80), view(m.Local(pid).At(0), 80))
	}
	m.Close()
}
