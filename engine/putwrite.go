package engine

import (
	"fmt"
	"unsafe"
)

// The writing of puts. The engine decides every put it carries (which
// registration, whether the bytes fit and can be written, in what order)
// and writes none: it lists each as {target, source, n} in its core's
// write list, in C memory, and hands the list to the PutWriter once per
// apply phase (deliver) or per bsp_hpput at the call. The product's writer
// is the C request path's (capi/direct.c), the one that writes the direct
// puts' logs too, so that a put's bytes are written in one place (a direct
// bsp_hpput is copied at its call, by the C path's copy_user). The
// engine's blocks hold the sources, so their memory comes from the writer
// too (Alloc): never the Go heap, which C is not handed. The one put the
// writer does not write is a large put from another process that the MPI
// world receives straight into its target (placement.go): the engine
// chooses the address, and MPI's receive is the write.

// PutWriter writes the puts the engine lists, and gives the memory that
// the engine's blocks and write lists live in.
type PutWriter interface {
	// WritePuts writes the n puts listed at list (putWrite entries), in
	// their order.
	WritePuts(list unsafe.Pointer, n int)
	// Alloc is at least n bytes outside the Go heap, 8-aligned, and how
	// many (the allocator rounds up to what fills its pieces); nil when
	// the system refuses them. Free returns them.
	Alloc(n int) (unsafe.Pointer, int)
	Free(p unsafe.Pointer)
}

// putWriter is the process's PutWriter (SetPutWriter).
var putWriter PutWriter

// SetPutWriter gives the engine the writer of puts and its memory; set
// once, before the first machine starts a run.
func SetPutWriter(w PutWriter) { putWriter = w }

// writer is the PutWriter; none set is a defect of the program that
// linked the engine.
func writer() PutWriter {
	if putWriter == nil {
		panic("engine: no PutWriter was set (SetPutWriter)")
	}
	return putWriter
}

// putWrite is one put the engine listed for the writer (struct put_write
// in capi/engine_defs.h): n bytes from source to target, both outside the
// Go heap. Addresses as integers: storing them needs no write barrier.
type putWrite struct {
	target uintptr `c:"target,void *"`
	source uintptr `c:"source,const void *"`
	nbytes uintptr `c:"nbytes"`
}

const putWriteSize = int(unsafe.Sizeof(putWrite{}))

// writeList is a core's puts listed since its last flush.
type writeList struct {
	buf     buffer     // outside the Go heap
	entries []putWrite // buf's memory
	n       int
}

// room makes room for n more entries.
func (w *writeList) room(n int) {
	if w.n+n > len(w.entries) {
		w.grow(n)
	}
}

// list lists n bytes from source to target, in room made before.
func (w *writeList) list(target, source unsafe.Pointer, n int) {
	w.entries[w.n] = putWrite{uintptr(target), uintptr(source), uintptr(n)}
	w.n++
}

//go:noinline
func (w *writeList) grow(n int) { // rare: out of room, which inlines
	w.buf.outside, w.buf.used = true, w.n*putWriteSize
	if err := w.buf.grow(max(n, w.n, 64) * putWriteSize); err != nil {
		panic(fmt.Sprintf("engine: %v", err)) // the system refused a few bytes, as append would
	}
	w.entries = unsafe.Slice((*putWrite)(w.buf.at(0)), len(w.buf.mem)/putWriteSize)
}

// flush has the writer write the listed puts.
func (w *writeList) flush() {
	if w.n > 0 {
		writer().WritePuts(w.buf.at(0), w.n)
		w.n = 0
	}
}

func (w *writeList) free() {
	w.buf.free()
	w.entries, w.n = nil, 0
}

// listPut lists a put's bytes for this core's variable at addr+offset,
// in room made before (c.comm.writes.room).
func (c *Core) listPut(addr unsafe.Pointer, offset int, data []byte) {
	c.comm.writes.list(addAt(addr, offset), unsafe.Pointer(unsafe.SliceData(data)), len(data))
}

// writeListed writes the puts listed on this core (the end of an apply
// phase).
func (c *Core) writeListed() { c.comm.writes.flush() }
