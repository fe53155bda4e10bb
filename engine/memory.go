package engine

import (
	"fmt"
	"sync"
	"unsafe"

	"libebsp/emesh"
)

// memoryState is the machine's emulated memory and streams for one
// bsp_begin: made by Begin, released by End.
type memoryState struct {
	config *emesh.MemoryConfig // nil: read from the environment at Begin
	mem    *emesh.Memory

	streamMu sync.Mutex
	streams  []*Stream   // bsp_stream_create streams, by id
	legacy   [][]*Stream // per core: its deprecated streams, by its number for them
}

// SetMemoryConfig sets the memory sizes of the next Begin (default:
// emesh.DefaultMemoryConfig).
func (m *Machine) SetMemoryConfig(cfg emesh.MemoryConfig) { m.memory.config = &cfg }

// Memory is the emulated memory of the current bsp_begin, or nil.
func (m *Machine) Memory() *emesh.Memory { return m.memory.mem }

// beginMemory maps the memories of nprocs cores; m.mu is held.
func (m *Machine) beginMemory(nprocs int) error {
	cfg := emesh.DefaultMemoryConfig
	if m.memory.config != nil {
		cfg = *m.memory.config
	}
	mem, err := emesh.NewMemory(nprocs, cfg)
	if err != nil {
		return err
	}
	m.memory.mem = mem
	m.memory.streams = nil
	m.memory.legacy = make([][]*Stream, m.mesh.Cores()) // any core of the chip, as on the board
	return nil
}

// endMemory releases the memories; pointers into them become invalid.
func (m *Machine) endMemory() {
	if m.memory.mem != nil {
		m.memory.mem.Close()
	}
	m.memory.mem = nil
	m.memory.streams = nil
	m.memory.legacy = nil
}

// startRunMemory gives every core a fresh local memory allocator: blocks
// from ebsp_malloc do not outlive a run (on the board, loading and starting
// a kernel resets local memory too). The bytes themselves stay, so what
// the host wrote with ebsp_write before the run is there for the kernel.
// External memory blocks and streams persist until bsp_end.
func (m *Machine) startRunMemory() {
	for pid := range m.cores {
		m.memory.mem.Local(pid).Reset()
	}
}

// finishRunMemory waits for the transfers still in flight (a kernel may
// end without waiting for its DMA) and releases the streams left open.
func (m *Machine) finishRunMemory() {
	if m.memory.mem == nil {
		return
	}
	m.memory.mem.Drain()
	// Only a stopped run leaves transfers for the drain (a core waits for
	// its own before every synchronisation and at its kernel's end), so a
	// transfer that could not be copied here goes unreported: the run is
	// reported already.
	for pid := range m.cores {
		m.memory.mem.DMA(pid).TakeFault()
	}
	m.memory.streamMu.Lock()
	defer m.memory.streamMu.Unlock()
	for _, s := range m.memory.streams {
		s.owner = noOwner
	}
	for _, c := range m.cores {
		c.streams = nil
	}
}

// Malloc is ebsp_malloc: n bytes of this core's local memory, or nil.
func (c *Core) Malloc(n int) unsafe.Pointer {
	a := c.m.memory.mem.Local(c.pid)
	off, ok := a.Alloc(n)
	if !ok {
		return nil
	}
	return a.At(off)
}

// ExtMalloc is ebsp_ext_malloc: n bytes of external memory, or nil.
func (c *Core) ExtMalloc(n int) unsafe.Pointer {
	a := c.m.memory.mem.Ext()
	off, ok := a.Alloc(n)
	if !ok {
		return nil
	}
	return a.At(off)
}

// Free is ebsp_free: it tells local from external memory by the address.
// A pointer that is not a block (freed already, inside a block, or in
// neither memory) is reported under strict checks only: the board's
// ebsp_free read a bogus header there and printed nothing, and programs
// that did it ran on (EBSP's LU example frees the pointer that
// ebsp_open_up_stream handed out, 4 bytes into its buffer); here it does
// nothing. A NULL pointer or another core's local memory made the board's
// allocator write far outside its tables: reported at every level.
func (c *Core) Free(p unsafe.Pointer) *Error {
	const call = "ebsp_free"
	mem := c.m.memory.mem
	if p == nil {
		return c.errorf(call, "NULL pointer")
	}
	if owner, ok := mem.LocalOwner(p, 0); ok {
		local := mem.Local(owner)
		off, _ := local.Offset(p)
		if owner != c.pid {
			return c.errorf(call, "local memory offset %#x of core %02d: a core frees only its own blocks", off, owner)
		}
		if !local.Free(off) {
			return c.strictErrorf(call, "local memory offset %#x is not a block (never allocated, or freed already)", off)
		}
		return nil
	}
	if off, ok := mem.Ext().Offset(p); ok {
		if !mem.Ext().Free(off) {
			return c.strictErrorf(call, "external memory offset %#x is not a block (never allocated, or freed already)", off)
		}
		return nil
	}
	return c.FreeNumber(uintptr(p))
}

// FreeNumber is ebsp_free of p, a number below 4096 that the shim does
// not pass on as a pointer: never a block, reported as Free reports one.
func (c *Core) FreeNumber(p uintptr) *Error {
	return c.strictErrorf("ebsp_free", "%#x is in neither local nor external memory; it did not come from ebsp_malloc or ebsp_ext_malloc", p)
}

// LocalAddress turns an offset into this core's local memory (as the host
// uses with ebsp_write) into a pointer; nil when out of range.
func (c *Core) LocalAddress(off int) unsafe.Pointer {
	a := c.m.memory.mem.Local(c.pid)
	if off < 0 || off >= a.Size() {
		return nil
	}
	return a.At(off)
}

// DMA is this core's DMA engine.
func (c *Core) DMA() *emesh.DMA { return c.m.memory.mem.DMA(c.pid) }

// HostAddress resolves an ebsp_write/ebsp_read address of core pid: value
// is the address as a number, ptr the same as a pointer. Values below the
// local memory size are offsets into pid's local memory. Values below 1 MiB
// (a core's whole address space on the Epiphany) are out of range. Larger
// ones are pointers the core handed up: they may lie in pid's local memory
// or in external memory (wholly), or anywhere else in the host process,
// where kernel globals and stacks live; only a range in another core's
// local memory is refused, as it means the pid is wrong.
func (m *Machine) HostAddress(call string, pid int, value int64, ptr unsafe.Pointer, n int) (unsafe.Pointer, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.state < HostBegun || m.memory.mem == nil {
		return nil, fmt.Errorf("%s: called before bsp_begin", call)
	}
	if pid < 0 || pid >= len(m.cores) {
		return nil, fmt.Errorf("%s: pid %d out of range; bsp_begin started cores 0..%d", call, pid, len(m.cores)-1)
	}
	if n < 0 {
		return nil, fmt.Errorf("%s: negative size %d", call, n)
	}
	mem := m.memory.mem
	local := mem.Local(pid)
	switch {
	case value < 0:
		return nil, fmt.Errorf("%s: negative address %d", call, value)
	case value < int64(local.Size()):
		if int64(n) > int64(local.Size())-value {
			return nil, fmt.Errorf("%s: %d bytes at offset %#x run past the end of core %02d's %#x bytes of local memory",
				call, n, value, pid, local.Size())
		}
		return local.At(int(value)), nil
	case value == int64(local.Size()) && n == 0:
		return local.At(0), nil // nothing at the end: as e_write of 0 bytes did
	case value < emesh.MaxLocalSize:
		return nil, fmt.Errorf("%s: offset %#x is beyond core %02d's %#x bytes of local memory", call, value, pid, local.Size())
	}
	if owner, ok := mem.LocalOwner(ptr, 0); ok {
		off, _ := mem.Local(owner).Offset(ptr)
		if owner != pid {
			return nil, fmt.Errorf("%s: the address lies in the local memory of core %02d (offset %#x), not of core %02d", call, owner, off, pid)
		}
		if !local.Contains(ptr, n) {
			return nil, fmt.Errorf("%s: %d bytes at local memory offset %#x run past the end of core %02d's local memory", call, n, off, pid)
		}
	}
	if off, ok := mem.Ext().Offset(ptr); ok && !mem.Ext().Contains(ptr, n) {
		return nil, fmt.Errorf("%s: %d bytes at external memory offset %#x run past its end (%#x bytes)", call, n, off, mem.Ext().Size())
	}
	return ptr, nil
}
