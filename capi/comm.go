package main

// Glue of the communication engine: the core-side calls of faces/ebsp/comm_api.c
// (goXxx, pid first) and the host's message calls, exported directly.

/*
#include <stdlib.h>
#include "shim.h"
#include "comm.h"
#include "reqlog.h"
#include "direct.h"
*/
import "C"

import (
	"unsafe"

	"libebsp/emesh"
	"libebsp/engine"
)

// smallPointers tells whether any of ps is a number below 4096 other than
// nil, which the shim must never pass to Go as a pointer (the runtime aborts
// when it finds one on a stack it moves: user_pointer_small in shim.h); one
// that slipped through is reported as the library's own error, in place of
// a possible Go runtime dump later. ctests/fault_small relies on it.
func smallPointers(call string, ps ...unsafe.Pointer) bool {
	for _, p := range ps {
		if p != nil && uintptr(p) < C.LOWEST_ADDRESS {
			complain("internal error: " + call + ": a number below 4096 reached the engine as a pointer")
			return true
		}
	}
	return false
}

// check reports a misuse (and stops the run).
func check(err *engine.Error) {
	if err != nil {
		fail(err)
	}
}

// answer is what a request call returns to the shim: C.ENGINE_NOT_YET when
// it waits for another core's registration (engine.NotYet: the shim waits
// outside Go and calls again), else C.ENGINE_DONE, after reporting a misuse.
func answer(err *engine.Error) C.int {
	if err == engine.NotYet {
		return C.ENGINE_NOT_YET
	}
	check(err)
	return C.ENGINE_DONE
}

// goDrainLog parses a core's request log (reqlog.c); it returns how many
// bytes it took: all n, or up to a request that waits for another core's
// registration (the shim waits, then drains the rest).
//
//export goDrainLog
func goDrainLog(pid C.int, log unsafe.Pointer, n C.size_t) C.size_t {
	c := coreOf(pid)
	if c == nil {
		return n
	}
	done, err := c.DrainLog(log, int(n))
	if err == engine.NotYet {
		return C.size_t(done)
	}
	check(err)
	return n
}

//export goPushReg
func goPushReg(pid C.int, variable unsafe.Pointer, nbytes C.int) {
	if smallPointers("bsp_push_reg", variable) {
		return
	}
	if c := coreOf(pid); c != nil {
		check(c.PushReg(variable, int(nbytes)))
	}
}

//export goPopReg
func goPopReg(pid C.int, variable unsafe.Pointer) {
	if smallPointers("bsp_pop_reg", variable) {
		return
	}
	if c := coreOf(pid); c != nil {
		check(c.PopReg(variable))
	}
}

// The DRMA calls answer C.ENGINE_NOT_YET or C.ENGINE_DONE (answer).

//export goPut
func goPut(pid, target C.int, src, dst unsafe.Pointer, offset, nbytes C.int) C.int {
	if smallPointers("bsp_put", src, dst) {
		return C.ENGINE_DONE
	}
	if c := coreOf(pid); c != nil {
		return answer(c.Put(int(target), src, dst, int(offset), int(nbytes)))
	}
	return C.ENGINE_DONE
}

//export goHPPut
func goHPPut(pid, target C.int, src, dst unsafe.Pointer, offset, nbytes C.int) C.int {
	if smallPointers("bsp_hpput", src, dst) {
		return C.ENGINE_DONE
	}
	if c := coreOf(pid); c != nil {
		return answer(c.HPPut(int(target), src, dst, int(offset), int(nbytes)))
	}
	return C.ENGINE_DONE
}

//export goGet
func goGet(pid, source C.int, src unsafe.Pointer, offset C.int, dst unsafe.Pointer, nbytes C.int) C.int {
	if smallPointers("bsp_get", src, dst) {
		return C.ENGINE_DONE
	}
	if c := coreOf(pid); c != nil {
		return answer(c.Get(int(source), src, int(offset), dst, int(nbytes)))
	}
	return C.ENGINE_DONE
}

//export goHPGet
func goHPGet(pid, source C.int, src unsafe.Pointer, offset C.int, dst unsafe.Pointer, nbytes C.int) C.int {
	if smallPointers("bsp_hpget", src, dst) {
		return C.ENGINE_DONE
	}
	if c := coreOf(pid); c != nil {
		return answer(c.HPGet(int(source), src, int(offset), dst, int(nbytes)))
	}
	return C.ENGINE_DONE
}

//export goDirectGet
func goDirectGet(pid, source C.int, src unsafe.Pointer, offset C.int, dst unsafe.Pointer, nbytes C.int) C.int {
	if smallPointers("bsp_direct_get", src, dst) {
		return C.ENGINE_DONE
	}
	if c := coreOf(pid); c != nil {
		return answer(c.DirectGet(int(source), src, int(offset), dst, int(nbytes)))
	}
	return C.ENGINE_DONE
}

// goDirectAddress stores core target's copy of variable in *addr (NULL
// when there is none).
//
//export goDirectAddress
func goDirectAddress(pid, target C.int, variable unsafe.Pointer, addr *unsafe.Pointer) C.int {
	*addr = nil
	if smallPointers("ebsp_get_direct_address", variable) {
		return C.ENGINE_DONE
	}
	c := coreOf(pid)
	if c == nil {
		return C.ENGINE_DONE
	}
	a, err := c.DirectAddress(int(target), variable)
	*addr = a
	return answer(err)
}

//export goBeginDirect
func goBeginDirect(pid, kind C.int) C.int64_t {
	c := coreOf(pid)
	if c == nil {
		return 0 // the run is stopping: no budget
	}
	budget, _ := c.BeginDirect(engine.DirectKind(kind)) // its mode allowed it: the shim asked
	return C.int64_t(budget)
}

//export goDirectExhausted
func goDirectExhausted(pid, kind C.int) {
	if c := coreOf(pid); c != nil {
		check(c.DirectExhausted(engine.DirectKind(kind)))
	}
}

//export goWireBound
func goWireBound(pid, target C.int, variable unsafe.Pointer) C.int64_t {
	c := coreOf(pid)
	if c == nil {
		return 0
	}
	return C.int64_t(c.WireBound(int(target), variable))
}

//export goWireSlot
func goWireSlot(pid C.int, variable unsafe.Pointer) C.int {
	c := coreOf(pid)
	if c == nil {
		return -1
	}
	return C.int(c.WireSlot(variable))
}

//export goRemoteVariable
func goRemoteVariable(pid, target C.int, variable unsafe.Pointer, remote *unsafe.Pointer, size *C.int) C.int {
	if smallPointers("bsp_hpput", variable) {
		return C.ENGINE_DONE
	}
	c := coreOf(pid)
	if c == nil {
		return 0
	}
	addr, n, ok := c.RemoteVariable(int(target), variable)
	if !ok {
		return 0
	}
	*remote, *size = addr, C.int(n)
	return 1
}

//export goSetTagsize
func goSetTagsize(pid, tagsize C.int) C.int {
	c := coreOf(pid)
	if c == nil {
		return tagsize
	}
	old, err := c.SetTagsize(int(tagsize))
	check(err)
	return C.int(old)
}

//export goSend
func goSend(pid, target C.int, tag, payload unsafe.Pointer, nbytes C.int) {
	if smallPointers("bsp_send", tag, payload) {
		return
	}
	if c := coreOf(pid); c != nil {
		check(c.Send(int(target), tag, payload, int(nbytes)))
	}
}

// hpmoveInto stores the pointers of the message taken by move, if any.
func hpmoveInto(move func() (unsafe.Pointer, unsafe.Pointer, int), tagOut, payloadOut *unsafe.Pointer) int {
	tag, payload, size := move()
	if size >= 0 {
		if tagOut != nil {
			*tagOut = tag
		}
		if payloadOut != nil {
			*payloadOut = payload
		}
	}
	return size
}

//export goSendUp
func goSendUp(pid C.int, tag, payload unsafe.Pointer, nbytes C.int) {
	if smallPointers("ebsp_send_up", tag, payload) {
		return
	}
	if c := coreOf(pid); c != nil {
		check(c.SendUp(tag, payload, int(nbytes)))
	}
}

// ---- host side ----

//export goHostTagsize
func goHostTagsize() C.int {
	if m := hostMachine("ebsp_get_tagsize"); m != nil {
		return C.int(m.HostTagsize())
	}
	return 0
}

// The host's message calls are C functions (faces/ebsp/host.c) that check the
// pointers they are given (see user_pointer_small in shim.h) and call
// these. A pointer the shim did not pass on arrives as nil, with its value
// in small.

// reportSmall reports a pointer that the shim did not pass on: the n bytes
// at the small number p, argument what of call.
func reportSmall(call, what string, p uintptr, n int, write bool) {
	bad := emesh.BadMemory{P: p, At: p, N: n, Write: write}
	complain(call + ": " + bad.Describe(what))
}

//export goSetHostTagsize
func goSetHostTagsize(size C.int) C.int {
	m := hostMachine("ebsp_set_tagsize")
	if m == nil {
		return size
	}
	old, err := m.SetHostTagsize(int(size))
	if err != nil {
		complain(err.Error())
	}
	return C.int(old)
}

//export goSendDown
func goSendDown(pid C.int, tag unsafe.Pointer, smallTag C.uintptr_t, payload unsafe.Pointer, nbytes C.int) {
	m := hostMachine("ebsp_send_down")
	if m == nil {
		return
	}
	if n := m.SendDownTagsize(); smallTag != 0 && n > 0 {
		reportSmall("ebsp_send_down", "the tag", uintptr(smallTag), n, false)
		return
	}
	if err := m.SendDown(int(pid), tag, payload, int(nbytes)); err != nil {
		complain(err.Error())
	}
}

// goHostQSize stores the host queue's counts in the shim's variables.
//
//export goHostQSize
func goHostQSize(packets, accumBytes *C.int) {
	if m := hostMachine("ebsp_qsize"); m != nil {
		n, bytes := m.HostQSize()
		*packets, *accumBytes = C.int(n), C.int(bytes)
	}
}

//export goHostGetTag
func goHostGetTag(tag unsafe.Pointer, smallTag C.uintptr_t) C.int {
	m := hostMachine("ebsp_get_tag")
	if m == nil {
		return -1
	}
	if n := m.HostTagsize(); smallTag != 0 && n > 0 {
		if _, ok := m.HostPeekSize(); ok {
			reportSmall("ebsp_get_tag", "the tag", uintptr(smallTag), n, true)
		}
	}
	st, err := m.HostGetTag(tag)
	if err != nil {
		complain(err.Error())
	}
	return C.int(st)
}

//export goHostMove
func goHostMove(payload unsafe.Pointer, smallPayload C.uintptr_t, bufferSize C.int) {
	m := hostMachine("ebsp_move")
	if m == nil {
		return
	}
	if size, ok := m.HostPeekSize(); smallPayload != 0 && ok && min(size, int(bufferSize)) > 0 {
		reportSmall("ebsp_move", "the payload", uintptr(smallPayload), min(size, int(bufferSize)), true)
		return
	}
	if err := m.HostMove(payload, int(bufferSize)); err != nil {
		complain(err.Error())
	}
}

// goHostHPMove stores the message's pointers in the shim's variables.
//
//export goHostHPMove
func goHostHPMove(tagOut, payloadOut *unsafe.Pointer) C.int {
	m := hostMachine("ebsp_hpmove")
	if m == nil {
		return -1
	}
	return C.int(hpmoveInto(m.HostHPMove, tagOut, payloadOut))
}
