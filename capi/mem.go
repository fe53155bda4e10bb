package main

/*
#include "shim.h"
#include "mem.h"
*/
import "C"

import (
	"fmt"
	"unsafe"

	"libebsp/emesh"
	"libebsp/engine"
)

// Core-side memory calls (faces/ebsp/mem.c) and the host's ebsp_write and
// ebsp_read (faces/ebsp/host_mem.c).

//export goMalloc
func goMalloc(pid C.int, n C.uint) unsafe.Pointer {
	c := coreOf(pid)
	if c == nil {
		return nil
	}
	return c.Malloc(int(n))
}

//export goExtMalloc
func goExtMalloc(pid C.int, n C.uint) unsafe.Pointer {
	c := coreOf(pid)
	if c == nil {
		return nil
	}
	return c.ExtMalloc(int(n))
}

//export goFree
func goFree(pid C.int, p unsafe.Pointer, small C.uintptr_t) {
	if smallPointers("ebsp_free", p) {
		return
	}
	c := coreOf(pid)
	if c == nil {
		return
	}
	var err *engine.Error
	if small != 0 { // a number below 4096, passed as nil (shim.h)
		err = c.FreeNumber(uintptr(small))
	} else {
		err = c.Free(p)
	}
	if err != nil {
		warn(err)
	}
}

//export goLocalAddress
func goLocalAddress(pid C.int, off C.uint) unsafe.Pointer {
	c := coreOf(pid)
	if c == nil {
		return nil
	}
	return c.LocalAddress(int(off))
}

// goDmaPush queues a transfer on the core's engine and returns its ticket
// and, in *slot, the engine's shared state for ebsp_dma_wait.
//
//export goDmaPush
func goDmaPush(pid C.int, dst, src unsafe.Pointer, n C.size_t, slot *unsafe.Pointer) C.uint {
	c := coreOf(pid)
	if c == nil {
		return 0
	}
	dma := c.DMA()
	*slot = dma.Slot()
	if int(n) < 0 || uint64(int(n)) != uint64(n) {
		fail(c.Misuse("ebsp_dma_push", fmt.Sprintf("nbytes %d is more than any memory holds", uint64(n))))
		return 0
	}
	ticket, problem := dma.PushChecked("ebsp_dma_push", dst, src, int(n))
	if problem != "" {
		fail(c.Misuse("ebsp_dma_push", problem))
	}
	return C.uint(ticket)
}

// goDmaRun is one step of waiting for ticket of core pid's engine (see
// emesh.DMA.Run): 0 when it is complete, else the nanoseconds to sleep
// before asking again. It never blocks.
//
//export goDmaRun
func goDmaRun(pid C.int, ticket C.uint) C.longlong {
	c := coreOf(pid)
	if c == nil {
		return 0
	}
	dma := c.DMA()
	left := dma.Run(uint32(ticket))
	if f := dma.TakeFault(); f.Problem != "" {
		fail(c.Misuse(f.Call, f.Problem))
		return 0
	}
	return C.longlong(left)
}

// goHostCopy is ebsp_write (toCore != 0) and ebsp_read: value and ptr are
// the core-side address as a number and as a pointer (see
// engine.Machine.HostAddress), buf the host's buffer.
//
//export goHostCopy
func goHostCopy(pid C.int, value C.longlong, ptr, buf unsafe.Pointer, n C.int, toCore C.int) C.int {
	call := "ebsp_read"
	if toCore != 0 {
		call = "ebsp_write"
	}
	m := hostMachine(call)
	if m == nil {
		return 0
	}
	if buf == nil && n > 0 {
		complain(call + ": the host buffer is NULL")
		return 0
	}
	addr, err := m.HostAddress(call, int(pid), int64(value), ptr, int(n))
	if err != nil {
		complain(err.Error())
		return 0
	}
	// The host buffer, and the core-side address when it is a pointer the
	// program got from a core (or made up), are checked before Go copies.
	hostWhat, coreWhat := "the destination", "the source"
	if toCore != 0 {
		hostWhat, coreWhat = "the source", "the destination"
	}
	if bad := emesh.CheckUser(buf, int(n), toCore == 0); bad != nil {
		complain(call + ": " + bad.Describe(hostWhat))
		return 0
	}
	if bad := emesh.CheckUser(addr, int(n), toCore != 0); bad != nil {
		complain(fmt.Sprintf("%s: %s (taken as an address: an offset is below %#x, the size of core %02d's local memory)",
			call, bad.Describe(coreWhat), m.Memory().Local(int(pid)).Size(), pid))
		return 0
	}
	if n > 0 {
		core, host := unsafe.Slice((*byte)(addr), int(n)), unsafe.Slice((*byte)(buf), int(n))
		if toCore != 0 {
			copy(core, host)
		} else {
			copy(host, core)
		}
	}
	return 1
}

func init() {
	emesh.SetUserMemoryCheck(func(p unsafe.Pointer, n int, write bool) int {
		return int(C.user_memory_good(p, C.size_t(n), C.int(boolInt(write))))
	})
}

// goBadUserMemory reports memory the shim found bad before passing it on
// (see user_pointer_small in shim.h): on core pid, or the host for pid -1.
//
//export goBadUserMemory
func goBadUserMemory(pid C.int, call, what *C.char, p C.uintptr_t, n, good C.size_t, write C.int) {
	bad := emesh.BadMemory{P: uintptr(p), At: uintptr(p) + uintptr(good), N: int(n), Write: write != 0}
	text := bad.Describe(C.GoString(what))
	if pid < 0 {
		complain(C.GoString(call) + ": " + text)
		return
	}
	if c := coreOf(pid); c != nil {
		fail(c.Misuse(C.GoString(call), text))
	}
}
