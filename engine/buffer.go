package engine

import (
	"fmt"
	"syscall"
	"unsafe"
)

// buffer is a growable byte area outside the Go heap (mmap'ed), for data
// that C code keeps pointers into (message tags and payloads returned by
// bsp_hpmove) and for the packed request blocks of a superstep. Memory
// exhaustion is reported as an error rather than a crash.
type buffer struct {
	mem  []byte
	used int
	// onHeap keeps the bytes on the Go heap instead, starting small: for
	// data only Go reads (the packed blocks, one per destination core,
	// where a 64 KiB mapping each would cost 1024*1024 mappings and 4 GiB
	// of touched pages in an all-to-all on 1024 cores).
	onHeap bool
	// minBytes, when set, is the smallest mapping instead of bufferMinBytes.
	minBytes int
}

// bufferMinBytes is the smallest mapping; it grows by doubling.
const bufferMinBytes = 64 << 10

// heapBufferMinBytes is the smallest Go heap buffer.
const heapBufferMinBytes = 64

// errNoMemory reports that the operating system refused more memory.
type errNoMemory struct{ want int }

func (e errNoMemory) Error() string {
	return fmt.Sprintf("out of memory: could not map %d bytes for communication buffers", e.want)
}

// grow makes room for n more bytes, moving the contents when the mapping
// has to be replaced. Only call when nobody holds pointers into the buffer.
func (a *buffer) grow(n int) error {
	need := a.used + n
	if need <= len(a.mem) {
		return nil
	}
	size := max(bufferMinBytes, len(a.mem))
	if a.minBytes > 0 {
		size = max(a.minBytes, len(a.mem))
	}
	if a.onHeap {
		size = max(heapBufferMinBytes, len(a.mem))
	}
	for size < need {
		size *= 2
	}
	if a.onHeap {
		mem := make([]byte, size)
		copy(mem, a.mem[:a.used])
		a.mem = mem
		return nil
	}
	mem, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return errNoMemory{size}
	}
	copy(mem, a.mem[:a.used])
	used := a.used
	a.free()
	a.mem, a.used = mem, used
	return nil
}

// take reserves n bytes (n <= room after grow) and returns them.
func (a *buffer) take(n int) []byte {
	b := a.mem[a.used : a.used+n : a.used+n]
	a.used += n
	return b
}

// at returns a pointer to offset off.
func (a *buffer) at(off int) unsafe.Pointer {
	return unsafe.Add(unsafe.Pointer(unsafe.SliceData(a.mem)), off)
}

func (a *buffer) reset() { a.used = 0 }

// free returns the mapping to the system.
func (a *buffer) free() {
	if a.mem != nil && !a.onHeap {
		_ = syscall.Munmap(a.mem)
	}
	a.mem, a.used = nil, 0
}

// bytesAt views n bytes of C (or other non-Go-heap) memory at p.
func bytesAt(p unsafe.Pointer, n int) []byte {
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(p), n)
}
