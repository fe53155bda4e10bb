package emesh

import (
	"fmt"
	"sort"
	"sync"
	"syscall"
	"unsafe"
)

// Align is the alignment of every block an Arena hands out: the Epiphany's
// double word, which also suits any host scalar type.
const Align = 8

// Arena is an emulated memory: a block of mmap'ed bytes (never Go heap, so
// C code may keep pointers into it) with a first-fit allocator. The
// allocator's bookkeeping lives in Go, outside the arena, so all of the
// arena's bytes can be handed out. Safe for concurrent use.
type Arena struct {
	mu   sync.Mutex
	mem  []byte
	free []extent    // free extents, sorted by offset, never adjacent
	used map[int]int // offset of each allocated block -> its size
}

type extent struct{ off, size int }

// newArena manages mem, which must stay mapped while the arena is used.
func newArena(mem []byte) *Arena {
	a := &Arena{mem: mem}
	a.Reset()
	return a
}

// mmapBytes maps n bytes of zeroed anonymous memory, below 2 GiB where the
// platform can (lowMapFlag) and there is room, else anywhere.
func mmapBytes(n int) ([]byte, error) {
	const prot, flags = syscall.PROT_READ | syscall.PROT_WRITE, syscall.MAP_ANON | syscall.MAP_PRIVATE
	if lowMapFlag != 0 {
		if mem, err := syscall.Mmap(-1, 0, n, prot, flags|lowMapFlag); err == nil {
			return mem, nil
		}
	}
	mem, err := syscall.Mmap(-1, 0, n, prot, flags)
	if err != nil {
		return nil, fmt.Errorf("mapping %d bytes of emulated memory: %w", n, err)
	}
	return mem, nil
}

// Base is the address of the arena's first byte.
func (a *Arena) Base() unsafe.Pointer { return unsafe.Pointer(&a.mem[0]) }

// Size is the arena's size in bytes.
func (a *Arena) Size() int { return len(a.mem) }

// Reset frees every block at once (the contents stay as they are).
func (a *Arena) Reset() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.free = []extent{{0, len(a.mem)}}
	a.used = map[int]int{}
}

// Alloc reserves n bytes (at least Align) and returns their offset; ok is
// false when no free extent is large enough.
func (a *Arena) Alloc(n int) (off int, ok bool) {
	if n < 0 || n > len(a.mem) {
		return 0, false
	}
	size := roundUp(max(n, 1))
	a.mu.Lock()
	defer a.mu.Unlock()
	for i, s := range a.free {
		if s.size < size {
			continue
		}
		if s.size == size {
			a.free = append(a.free[:i], a.free[i+1:]...)
		} else {
			a.free[i] = extent{s.off + size, s.size - size}
		}
		a.used[s.off] = size
		return s.off, true
	}
	return 0, false
}

// Free returns the block at off; it reports false when off is not the
// start of an allocated block (never allocated, or freed already).
func (a *Arena) Free(off int) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	size, ok := a.used[off]
	if !ok {
		return false
	}
	delete(a.used, off)
	i := sort.Search(len(a.free), func(i int) bool { return a.free[i].off > off })
	a.free = append(a.free, extent{})
	copy(a.free[i+1:], a.free[i:])
	a.free[i] = extent{off, size}
	a.coalesce(i)
	return true
}

// coalesce merges free extent i with its neighbours where they touch.
func (a *Arena) coalesce(i int) {
	if i+1 < len(a.free) && a.free[i].off+a.free[i].size == a.free[i+1].off {
		a.free[i].size += a.free[i+1].size
		a.free = append(a.free[:i+1], a.free[i+2:]...)
	}
	if i > 0 && a.free[i-1].off+a.free[i-1].size == a.free[i].off {
		a.free[i-1].size += a.free[i].size
		a.free = append(a.free[:i], a.free[i+1:]...)
	}
}

// InUse is the number of bytes allocated (rounded up to Align each).
func (a *Arena) InUse() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	total := 0
	for _, size := range a.used {
		total += size
	}
	return total
}

// Offset tells whether p points into the arena, and where.
func (a *Arena) Offset(p unsafe.Pointer) (int, bool) {
	base := uintptr(a.Base())
	if uintptr(p) < base || uintptr(p)-base >= uintptr(len(a.mem)) {
		return 0, false // compared as uintptr: an int difference wraps in a 32-bit build
	}
	return int(uintptr(p) - base), true
}

// Contains tells whether the n bytes at p lie wholly inside the arena.
func (a *Arena) Contains(p unsafe.Pointer, n int) bool {
	off, ok := a.Offset(p)
	return ok && n >= 0 && n <= len(a.mem)-off
}

// At is the address of the byte at off (which must be inside the arena).
func (a *Arena) At(off int) unsafe.Pointer { return unsafe.Pointer(&a.mem[off]) }

func roundUp(n int) int { return (n + Align - 1) &^ (Align - 1) }
