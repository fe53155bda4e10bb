package emesh

import (
	"fmt"
	"strconv"
	"strings"
	"syscall"
	"unsafe"
)

// The environment variables that configure the emulated memories (read by
// package env, named here in the errors of ParseMemoryConfig).
const (
	LocalMemEnv = "EBSP_LOCAL_MEM" // bytes of local memory per core, e.g. 0x8000, 64K
	ExtMemEnv   = "EBSP_EXT_MEM"   // bytes of external memory, e.g. 32M
	DMASyncEnv  = "EBSP_DMA_SYNC"  // 1: every DMA transfer completes inside ebsp_dma_push
)

// Defaults and bounds of the memory sizes. A core addresses at most 1 MiB
// of its own memory on the Epiphany; external memory is bounded so that
// offsets fit in an int32 on the C side, and in a 32-bit build so that it
// leaves room in 4 GiB of address space (MaxExtSize, addr32.go/addr64.go).
const (
	DefaultLocalSize = 0x8000
	DefaultExtSize   = 32 << 20
	MinLocalSize     = 0x1000
	MaxLocalSize     = 0x100000
	MinExtSize       = 1 << 16
)

// MemoryConfig sizes the emulated memories.
type MemoryConfig struct {
	LocalSize int      // bytes of local memory per core
	ExtSize   int      // bytes of external memory shared by all
	DMASync   bool     // DMA transfers are copied inside Push
	DMA       DMAModel // how long transfers take (zero: no time at all)
}

// DefaultMemoryConfig is the Parallella: 32 KiB per core, 32 MiB shared,
// the board's DMA timing.
var DefaultMemoryConfig = MemoryConfig{LocalSize: DefaultLocalSize, ExtSize: DefaultExtSize, DMA: BoardDMA}

// ParseMemoryConfig reads the values of EBSP_LOCAL_MEM, EBSP_EXT_MEM and
// EBSP_DMA_SYNC (package env reads them; "" means the default). Errors
// name the variable, as that is what the user has to change.
func ParseMemoryConfig(local, ext, dmaSync string) (MemoryConfig, error) {
	cfg := DefaultMemoryConfig
	var err error
	if cfg.LocalSize, err = sizeFromEnv(local, LocalMemEnv, DefaultLocalSize, MinLocalSize, MaxLocalSize); err != nil {
		return cfg, err
	}
	if cfg.ExtSize, err = sizeFromEnv(ext, ExtMemEnv, DefaultExtSize, MinExtSize, MaxExtSize); err != nil {
		return cfg, err
	}
	switch v := strings.TrimSpace(dmaSync); v {
	case "", "0":
	case "1":
		cfg.DMASync = true
	default:
		return cfg, fmt.Errorf("%s=%q: want 0 or 1", DMASyncEnv, v)
	}
	return cfg, nil
}

func sizeFromEnv(v, name string, def, lo, hi int) (int, error) {
	if v == "" {
		return def, nil
	}
	n, err := ParseSize(v)
	if err != nil {
		return 0, fmt.Errorf("%s: %v", name, err)
	}
	if n < lo || n > hi || n%Align != 0 {
		return 0, fmt.Errorf("%s=%s: want a multiple of %d from %#x to %#x bytes", name, v, Align, lo, hi)
	}
	return n, nil
}

// ParseSize reads a byte count: decimal, 0x-hex, or with a K or M suffix
// (binary units), e.g. "32768", "0x8000", "32K", "32M".
func ParseSize(text string) (int, error) {
	s := strings.ToUpper(strings.TrimSpace(text))
	mult := 1
	switch {
	case strings.HasSuffix(s, "K"), strings.HasSuffix(s, "KB"), strings.HasSuffix(s, "KIB"):
		mult, s = 1<<10, strings.TrimRight(strings.TrimSuffix(s, "IB"), "KB")
	case strings.HasSuffix(s, "M"), strings.HasSuffix(s, "MB"), strings.HasSuffix(s, "MIB"):
		mult, s = 1<<20, strings.TrimRight(strings.TrimSuffix(s, "IB"), "MB")
	}
	n, err := strconv.ParseInt(strings.TrimSpace(s), 0, 64)
	if err != nil || n < 0 || n > 1<<40 {
		return 0, fmt.Errorf("%q is not a size in bytes (e.g. 32768, 0x8000, 32K, 32M)", text)
	}
	n *= int64(mult)
	if n != int64(int(n)) { // beyond int in a 32-bit build
		return 0, fmt.Errorf("%q is more bytes than this build can address", text)
	}
	return int(n), nil
}

// Memory is the emulated memory of a machine for one bsp_begin: a local
// arena per core, the external arena, and a DMA engine per core.
type Memory struct {
	cfg      MemoryConfig
	localMap []byte
	slotMap  []byte
	local    []*Arena
	ext      *Arena
	dma      []*DMA
}

// NewMemory maps the memories of n cores. Unused pages cost nothing until
// touched, so 32 MiB of external memory is cheap.
func NewMemory(n int, cfg MemoryConfig) (*Memory, error) {
	m := &Memory{cfg: cfg}
	var err error
	if m.localMap, err = mmapBytes(n * cfg.LocalSize); err != nil {
		return nil, err
	}
	extMap, err := mmapBytes(cfg.ExtSize)
	if err != nil {
		m.Close()
		return nil, err
	}
	m.ext = newArena(extMap)
	slotSize := int(unsafe.Sizeof(DMASlot{}))
	if m.slotMap, err = mmapBytes(n * slotSize); err != nil {
		m.Close()
		return nil, err
	}
	for pid := 0; pid < n; pid++ {
		m.local = append(m.local, newArena(m.localMap[pid*cfg.LocalSize:(pid+1)*cfg.LocalSize:(pid+1)*cfg.LocalSize]))
		slot := (*DMASlot)(unsafe.Pointer(&m.slotMap[pid*slotSize]))
		m.dma = append(m.dma, newDMA(slot, m, pid, cfg))
	}
	return m, nil
}

// Cores is the number of cores with a local memory.
func (m *Memory) Cores() int { return len(m.local) }

// Local is core pid's local memory.
func (m *Memory) Local(pid int) *Arena { return m.local[pid] }

// Ext is the external memory.
func (m *Memory) Ext() *Arena { return m.ext }

// DMA is core pid's DMA engine.
func (m *Memory) DMA(pid int) *DMA { return m.dma[pid] }

// LocalOwner tells which core's local memory holds the n bytes at p.
// ok is false when they do not lie wholly inside one local memory.
func (m *Memory) LocalOwner(p unsafe.Pointer, n int) (pid int, ok bool) {
	if len(m.localMap) == 0 {
		return 0, false
	}
	start := uintptr(unsafe.Pointer(&m.localMap[0]))
	if uintptr(p) < start || uintptr(p)-start >= uintptr(len(m.localMap)) {
		return 0, false
	}
	pid = int(uintptr(p)-start) / m.cfg.LocalSize
	return pid, m.local[pid].Contains(p, n)
}

// overrun checks n bytes at p, an end of a transfer named what (e.g. "the
// source"), against the emulated memory it starts in: inside is false when
// p lies in none of them, problem is "" when the bytes fit.
func (m *Memory) overrun(p unsafe.Pointer, n int, what string) (inside bool, problem string) {
	if off, ok := m.ext.Offset(p); ok {
		if n > m.ext.Size()-off {
			return true, fmt.Sprintf("%s, %d bytes from external memory offset %#x, runs past its end (%#x bytes)", what, n, off, m.ext.Size())
		}
		return true, ""
	}
	if len(m.localMap) == 0 {
		return false, ""
	}
	start := uintptr(unsafe.Pointer(&m.localMap[0]))
	if uintptr(p) < start || uintptr(p)-start >= uintptr(len(m.localMap)) {
		return false, ""
	}
	pid := int(uintptr(p)-start) / m.cfg.LocalSize
	off := int(uintptr(p)-start) % m.cfg.LocalSize
	if n > m.cfg.LocalSize-off {
		return true, fmt.Sprintf("%s, %d bytes from offset %#x of core %02d's local memory, runs past its end (%#x bytes)", what, n, off, pid, m.cfg.LocalSize)
	}
	return true, ""
}

// InExt tells whether p lies in the external memory.
func (m *Memory) InExt(p unsafe.Pointer) bool {
	_, ok := m.ext.Offset(p)
	return ok
}

// Drain waits for every DMA engine to finish its queued transfers.
func (m *Memory) Drain() {
	for _, d := range m.dma {
		d.Drain()
	}
}

// Close finishes the DMA transfers and unmaps everything; pointers into the
// memories are invalid afterwards.
func (m *Memory) Close() {
	for _, d := range m.dma {
		d.close()
	}
	m.dma = nil
	for _, b := range [][]byte{m.localMap, m.slotMap} {
		if b != nil {
			_ = syscall.Munmap(b)
		}
	}
	if m.ext != nil {
		_ = syscall.Munmap(m.ext.mem)
	}
	m.localMap, m.slotMap, m.ext, m.local = nil, nil, nil, nil
}
