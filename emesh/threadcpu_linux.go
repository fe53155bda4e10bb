package emesh

import (
	"syscall"
	"unsafe"
)

// clockThreadCPUTime is CLOCK_THREAD_CPUTIME_ID (linux/time.h).
const clockThreadCPUTime = 3

// ThreadCPU is the CPU time the calling OS thread has used, in
// nanoseconds. The predictor charges a core's compute by it rather than
// by wall time: the emulator runs 16 cores on a few host CPUs, so a core's
// wall time between two syncs counts the time it waited for a CPU. Under
// EBSP_SCHED=threads each emulated core is one OS thread and calls into Go
// on it, so this reads that core's time; under coroutines it is the time of
// the worker thread, which also ran the cores it switched to in between.
// 0 if the clock fails.
func ThreadCPU() int64 {
	var ts syscall.Timespec
	_, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0)
	if errno != 0 {
		return 0
	}
	return int64(ts.Sec)*1e9 + int64(ts.Nsec)
}
