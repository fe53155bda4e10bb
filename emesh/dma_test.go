package emesh

import (
	"bytes"
	"sync"
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

// TestDMAIsAsynchronous holds the engine before its copy: Push has
// returned, the destination is untouched and the ticket is not done; after
// release the copy lands and Wait returns.
func TestDMAIsAsynchronous(t *testing.T) {
	m := newTestMemory(t, 1, DefaultMemoryConfig)
	d := m.DMA(0)
	gate := make(chan struct{})
	d.mu.Lock()
	d.hold = gate
	d.mu.Unlock()
	src, dst := m.Ext().At(0), m.Local(0).At(0)
	fill(src, 256, 1)
	ticket := d.Push(dst, src, 256)
	assert.NotZero(t, ticket)
	assert.False(t, d.Done(ticket))
	assert.Equal(t, make([]byte, 256), view(dst, 256), "destination written before the engine ran")
	close(gate)
	d.Wait(ticket)
	assert.True(t, d.Done(ticket))
	assert.Equal(t, view(src, 256), view(dst, 256))
}

// TestDMAInOrder chains transfers where each reads what the previous wrote:
// only in-order completion gives the final value.
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

func TestDMASynchronousMode(t *testing.T) {
	m := newTestMemory(t, 2, MemoryConfig{LocalSize: DefaultLocalSize, ExtSize: MinExtSize, DMASync: true})
	d := m.DMA(1)
	assert.True(t, d.Synchronous())
	fill(m.Ext().At(0), 64, 3)
	ticket := d.Push(m.Local(1).At(0), m.Ext().At(0), 64)
	assert.True(t, d.Done(ticket), "complete when Push returns")
	assert.Equal(t, view(m.Ext().At(0), 64), view(m.Local(1).At(0), 64))
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
}

func TestDrainAndClose(t *testing.T) {
	m, err := NewMemory(4, DefaultMemoryConfig)
	require.NoError(t, err)
	for pid := 0; pid < 4; pid++ {
		for i := 0; i < 10; i++ {
			m.DMA(pid).Push(m.Local(pid).At(i*8), m.Ext().At(pid*80+i*8), 8)
		}
	}
	m.Drain()
	for pid := 0; pid < 4; pid++ {
		assert.True(t, m.DMA(pid).Done(m.DMA(pid).Issued()))
	}
	m.Close()
}

// TestDMAHelp: a waiting core copies the queued transfers up to its ticket
// itself, in order, and leaves the later ones queued.
func TestDMAHelp(t *testing.T) {
	m := newTestMemory(t, 1, DefaultMemoryConfig)
	d := &DMA{slot: &DMASlot{}, wake: make(chan struct{}, 1)} // no worker goroutine
	d.cond = sync.NewCond(&d.mu)
	fill(m.Ext().At(0), 64, 9)
	t1 := d.Push(m.Ext().At(64), m.Ext().At(0), 64)
	t2 := d.Push(m.Ext().At(128), m.Ext().At(64), 64)
	t3 := d.Push(m.Ext().At(192), m.Ext().At(128), 64)
	assert.False(t, d.Done(t1))
	d.Help(t2)
	assert.True(t, d.Done(t2))
	assert.False(t, d.Done(t3), "transfers after the ticket stay queued")
	assert.Equal(t, view(m.Ext().At(0), 64), view(m.Ext().At(128), 64))
	assert.Equal(t, make([]byte, 64), view(m.Ext().At(192), 64))
	d.Help(t3)
	assert.Equal(t, view(m.Ext().At(0), 64), view(m.Ext().At(192), 64))
}

func TestDMAPushNow(t *testing.T) {
	m := newTestMemory(t, 1, DefaultMemoryConfig)
	d := m.DMA(0)
	fill(m.Ext().At(0), 256, 4)
	for i := 0; i < 20; i++ {
		d.Push(m.Ext().At(256*(i+1)), m.Ext().At(256*i), 256)
	}
	ticket := d.PushNow(m.Ext().At(256*22), m.Ext().At(256*20), 256)
	d.Wait(ticket)
	assert.Equal(t, view(m.Ext().At(0), 256), view(m.Ext().At(256*22), 256), "after the transfers queued before it")
}
