package emesh

import (
	"syscall"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func newTestMemory(t *testing.T, n int, cfg MemoryConfig) *Memory {
	t.Helper()
	m, err := NewMemory(n, cfg)
	require.NoError(t, err)
	t.Cleanup(m.Close)
	return m
}

func TestArenaLimits(t *testing.T) {
	m := newTestMemory(t, 2, DefaultMemoryConfig)
	a := m.Local(0)
	_, ok := a.Alloc(0x9000)
	assert.False(t, ok, "0x9000 bytes cannot fit in 32 KiB")
	off, ok := a.Alloc(0x2000)
	require.True(t, ok)
	assert.Equal(t, 0, off)
	assert.True(t, a.Free(off))
	whole, ok := a.Alloc(0x8000)
	require.True(t, ok, "all of the local memory is available")
	_, ok = a.Alloc(1)
	assert.False(t, ok)
	assert.True(t, a.Free(whole))
	assert.False(t, a.Free(whole), "double free is reported")
	assert.Equal(t, 0, a.InUse())
}

func TestArenaFirstFitAndCoalescing(t *testing.T) {
	m := newTestMemory(t, 1, MemoryConfig{LocalSize: 0x1000, ExtSize: MinExtSize})
	a := m.Local(0)
	var offs []int
	for i := 0; i < 4; i++ {
		off, ok := a.Alloc(0x400)
		require.True(t, ok)
		offs = append(offs, off)
	}
	assert.Equal(t, []int{0, 0x400, 0x800, 0xc00}, offs)
	_, ok := a.Alloc(1)
	assert.False(t, ok)
	require.True(t, a.Free(offs[1]))
	require.True(t, a.Free(offs[2]))
	off, ok := a.Alloc(0x800)
	require.True(t, ok, "two freed neighbours merge into one extent")
	assert.Equal(t, 0x400, off)
	require.True(t, a.Free(offs[0]))
	require.True(t, a.Free(offs[3]))
	require.True(t, a.Free(off))
	off, ok = a.Alloc(0x1000)
	assert.True(t, ok)
	assert.Equal(t, 0, off)
	small, ok := a.Alloc(3)
	assert.False(t, ok)
	a.Reset()
	small, ok = a.Alloc(3)
	require.True(t, ok)
	next, _ := a.Alloc(1)
	assert.Equal(t, small+Align, next, "blocks are rounded up to the alignment")
}

func TestLocalOwner(t *testing.T) {
	m := newTestMemory(t, 3, DefaultMemoryConfig)
	p := unsafe.Add(m.Local(2).Base(), 0x10)
	pid, ok := m.LocalOwner(p, 0x100)
	assert.True(t, ok)
	assert.Equal(t, 2, pid)
	_, ok = m.LocalOwner(unsafe.Add(m.Local(1).Base(), 0x7ff0), 0x20)
	assert.False(t, ok, "a range running into the next core's memory")
	_, ok = m.LocalOwner(m.Ext().Base(), 4)
	assert.False(t, ok)
	assert.True(t, m.Ext().Contains(unsafe.Add(m.Ext().Base(), DefaultExtSize-4), 4))
	assert.False(t, m.Ext().Contains(unsafe.Add(m.Ext().Base(), DefaultExtSize-4), 5))
}

func TestParseMemoryConfig(t *testing.T) {
	cfg, err := ParseMemoryConfig("", "", "")
	require.NoError(t, err)
	assert.Equal(t, DefaultMemoryConfig, cfg)
	cfg, err = ParseMemoryConfig("64K", "0x100000", "1")
	require.NoError(t, err)
	assert.Equal(t, MemoryConfig{LocalSize: 64 << 10, ExtSize: 1 << 20, DMASync: true, DMA: BoardDMA}, cfg)
	for _, bad := range []string{"12", "lots", "2M", "0x8001"} {
		_, err = ParseMemoryConfig(bad, "", "")
		assert.ErrorContains(t, err, LocalMemEnv, bad)
	}
	_, err = ParseMemoryConfig("", "1K", "")
	assert.ErrorContains(t, err, ExtMemEnv)
	_, err = ParseMemoryConfig("", "", "yes")
	assert.ErrorContains(t, err, DMASyncEnv)
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int{"32768": 32768, "0x8000": 0x8000, "32K": 32768, "32kb": 32768, "32KiB": 32768, "32M": 32 << 20, "1MB": 1 << 20} {
		got, err := ParseSize(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, bad := range []string{"", "-1", "K", "3x"} {
		_, err := ParseSize(bad)
		assert.Error(t, err, bad)
	}
}

func TestEmulatedMemoryLiesBelow2GiB(t *testing.T) {
	if lowMapFlag == 0 {
		t.Skip("no MAP_32BIT here")
	}
	mem, err := mmapBytes(1 << 20)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(mem)
	if addr := uintptr(unsafe.Pointer(&mem[0])); addr+uintptr(len(mem)) > 1<<31 {
		t.Errorf("mapped at %#x: a cast to int would not survive", addr)
	}
}
