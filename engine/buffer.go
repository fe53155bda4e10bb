package engine

import (
	"fmt"
	"syscall"
	"unsafe"
)

// buffer is a growable byte area outside the Go heap (mmap'ed, or the
// PutWriter's), for data that C code keeps pointers into (message tags and
// payloads returned by bsp_hpmove, the puts the writer reads) and for the
// packed request blocks of a superstep. Memory
// exhaustion is reported as an error rather than a crash.
type buffer struct {
	mem  []byte
	used int
	// outside takes the bytes from the PutWriter instead (malloc),
	// starting small: for the packed blocks, one per destination core,
	// where a 64 KiB mapping each would cost 1024*1024 mappings and 4 GiB
	// of touched pages in an all-to-all on 1024 cores; and as the writer
	// reads puts' bytes there, never on the Go heap (putwrite.go).
	outside bool
	// minBytes, when set, is the smallest mapping instead of bufferMinBytes.
	minBytes int
}

// bufferMinBytes is the smallest mapping; it grows by doubling.
const bufferMinBytes = 64 << 10

// outsideMinBytes is the least asked of the PutWriter, which gives what
// fills its pieces (putmem.c: 40 bytes of a 64-byte chunk).
const outsideMinBytes = 24

// errNoMemory reports that the operating system refused more memory.
type errNoMemory struct{ want int }

func (e errNoMemory) Error() string {
	return fmt.Sprintf("out of memory: could not map %d bytes for communication buffers", e.want)
}

// grow makes room for n more bytes, moving the contents when the memory
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
	if a.outside {
		size = max(outsideMinBytes, len(a.mem))
	}
	for size < need {
		size *= 2
	}
	mem, err := a.obtain(size)
	if err != nil {
		return err
	}
	copy(mem, a.mem[:a.used])
	used := a.used
	a.free()
	a.mem, a.used = mem, used
	return nil
}

// obtain is size new bytes: the PutWriter's, or a mapping.
func (a *buffer) obtain(size int) ([]byte, error) {
	if a.outside {
		p, usable := writer().Alloc(size)
		if p == nil {
			return nil, errNoMemory{size}
		}
		return unsafe.Slice((*byte)(p), usable), nil
	}
	mem, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return nil, errNoMemory{size}
	}
	return mem, nil
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

// free returns the memory.
func (a *buffer) free() {
	switch {
	case a.mem == nil:
	case a.outside:
		writer().Free(unsafe.Pointer(unsafe.SliceData(a.mem)))
	default:
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
