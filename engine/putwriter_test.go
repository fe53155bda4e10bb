package engine

import (
	"sync"
	"unsafe"
)

// testWriter is the engine's tests' PutWriter: the product's is the C
// request path's (capi/direct.c), which the engine cannot link.
type testWriter struct {
	mu   sync.Mutex
	held map[unsafe.Pointer][]uint64 // what Alloc gave, kept reachable until Free
}

func (w *testWriter) WritePuts(list unsafe.Pointer, n int) {
	for _, e := range unsafe.Slice((*putWrite)(list), n) {
		copy(bytesAt(pointer(e.target), int(e.nbytes)), bytesAt(pointer(e.source), int(e.nbytes)))
	}
}

// pointer is the address a list entry holds (outside the Go heap in the
// product; here held by the test's memory or the test itself).
func pointer(a uintptr) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&a)) }

func (w *testWriter) Alloc(n int) (unsafe.Pointer, int) {
	mem := make([]uint64, (n+7)/8) // 8-aligned, as malloc's
	p := unsafe.Pointer(unsafe.SliceData(mem))
	w.mu.Lock()
	w.held[p] = mem
	w.mu.Unlock()
	return p, 8 * len(mem)
}

func (w *testWriter) Free(p unsafe.Pointer) {
	w.mu.Lock()
	delete(w.held, p)
	w.mu.Unlock()
}

func init() { SetPutWriter(&testWriter{held: map[unsafe.Pointer][]uint64{}}) }
