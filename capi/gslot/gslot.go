// Package gslot tells where the Go runtime keeps the goroutine pointer g of
// the running thread: at a fixed offset from the thread pointer (the FS
// base on x86-64), in the library's static TLS block. The coroutine
// scheduler switches the thread pointer to the running core's own thread
// control block (per-core thread-local storage, sched/coro_tls.c), and that
// slot must keep the worker thread's g whenever Go code may run, or Go
// would take the call for one from an unknown thread.
package gslot

// Offset is the thread-pointer-relative offset of the Go runtime's g slot,
// and ok false where this build cannot tell (then the scheduler keeps the
// thread pointer of the worker, without per-core TLS).
func Offset() (offset int64, ok bool) {
	return offset0()
}
