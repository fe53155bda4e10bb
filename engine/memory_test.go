package engine

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMallocLimits(t *testing.T) {
	m := newTestMachine(t, 2)
	runAgain(t, m, func(c kcore) {
		assert.Nil(t, c.Malloc(0x9000), "more than the 32 KiB local memory")
		p := c.Malloc(0x2000)
		require.NotNil(t, p)
		assert.Equal(t, c.LocalAddress(0), p, "the first block starts the local memory")
		q := c.Malloc(0x6000)
		require.NotNil(t, q, "the rest of the 32 KiB is free")
		assert.Nil(t, c.Malloc(1))
		assert.Nil(t, c.Free(q))
		assert.Equal(t, q, c.Malloc(0x6000), "freed space is reused")
		assert.Nil(t, c.Free(q))
		err := c.Free(q)
		require.NotNil(t, err)
		assert.Contains(t, err.Error(), "BSP ERROR: ebsp_free: ")
		assert.Equal(t, "local memory offset 0x2000 is not a block (never allocated, or freed already)", err.What)
		e := c.ExtMalloc(1 << 20)
		require.NotNil(t, e)
		assert.Nil(t, c.Free(e))
		assert.Nil(t, c.ExtMalloc(33<<20))
		assert.Nil(t, c.LocalAddress(0x8000))
	})
	runAgain(t, m, func(c kcore) {
		assert.NotNil(t, c.Malloc(0x8000), "every run starts with all local memory free")
	})
}

func TestFreeOtherCoresMemory(t *testing.T) {
	m := newTestMachine(t, 2)
	other := unsafe.Add(m.Memory().Local(1).Base(), 16)
	runAgain(t, m, func(c kcore) {
		if c.Pid() != 0 {
			return
		}
		err := c.Free(other)
		require.NotNil(t, err)
		assert.Equal(t, "local memory offset 0x10 of core 01: a core frees only its own blocks", err.What)
		assert.Equal(t, "NULL pointer", c.Free(nil).What)
	})
}

func TestHostAddress(t *testing.T) {
	m := newTestMachine(t, 2)
	mem := m.Memory()
	resolve := func(pid int, value int64, n int) (unsafe.Pointer, error) {
		return m.HostAddress("ebsp_write", pid, value, nil, n)
	}
	p, err := resolve(1, 0x100, 16)
	require.NoError(t, err)
	assert.Equal(t, unsafe.Add(mem.Local(1).Base(), 0x100), p)
	_, err = resolve(1, 0x7ff8, 8)
	assert.NoError(t, err)
	_, err = resolve(1, 0x8000, 0)
	assert.NoError(t, err, "0 bytes at the end")
	_, err = resolve(1, 0x8000, 1)
	assert.Error(t, err)
	_, err = resolve(1, 0x7ff8, 9)
	assert.EqualError(t, err, "ebsp_write: 9 bytes at offset 0x7ff8 run past the end of core 01's 0x8000 bytes of local memory")
	_, err = resolve(2, 0, 4)
	assert.EqualError(t, err, "ebsp_write: pid 2 out of range; bsp_begin started cores 0..1")
	_, err = resolve(0, 0x9000, 4)
	assert.EqualError(t, err, "ebsp_write: offset 0x9000 is beyond core 00's 0x8000 bytes of local memory")

	pointer := func(pid int, ptr unsafe.Pointer, n int) error {
		_, err := m.HostAddress("ebsp_read", pid, int64(uintptr(ptr)), ptr, n)
		return err
	}
	assert.NoError(t, pointer(0, unsafe.Add(mem.Local(0).Base(), 8), 64))
	assert.ErrorContains(t, pointer(1, unsafe.Add(mem.Local(0).Base(), 8), 64), "the address lies in the local memory of core 00 (offset 0x8), not of core 01")
	assert.ErrorContains(t, pointer(0, unsafe.Add(mem.Local(0).Base(), 0x7ff0), 64), "64 bytes at local memory offset 0x7ff0 run past the end of core 00's local memory")
	assert.NoError(t, pointer(0, mem.Ext().At(64), 64))
	assert.ErrorContains(t, pointer(0, mem.Ext().At(mem.Ext().Size()-8), 64), "64 bytes at external memory offset 0x1fffff8 run past its end (0x2000000 bytes)")
	host := make([]byte, 64)
	assert.NoError(t, pointer(1, unsafe.Pointer(&host[0]), 64), "a host pointer (a kernel global) is accepted")

	require.NoError(t, m.End())
	_, err = resolve(0, 0, 4)
	assert.EqualError(t, err, "ebsp_write: called before bsp_begin")
}

func TestDMAOfACore(t *testing.T) {
	m := newTestMachine(t, 4)
	runAgain(t, m, func(c kcore) {
		src := c.ExtMalloc(4096)
		dst := c.Malloc(4096)
		b := unsafe.Slice((*byte)(src), 4096)
		for i := range b {
			b[i] = byte(i + c.Pid())
		}
		ticket := c.DMA().Push(dst, src, 4096)
		c.DMA().Wait(ticket)
		assert.Equal(t, b, unsafe.Slice((*byte)(dst), 4096))
		// left in flight: the end of the run drains it
		c.DMA().Push(dst, src, 4096)
	})
	for pid := 0; pid < 4; pid++ {
		assert.True(t, m.Memory().DMA(pid).Done(m.Memory().DMA(pid).Issued()))
	}
}
