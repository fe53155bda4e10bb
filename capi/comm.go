package main

// Glue of the communication engine: the core-side calls of comm_api.c
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
	"libebsp/runtime"
)

// check reports a misuse (and stops the run).
func check(err *runtime.Error) {
	if err != nil {
		fail(err)
	}
}

// goDrainLog parses a core's request log (reqlog.c).
//
//export goDrainLog
func goDrainLog(pid C.int, log unsafe.Pointer, n C.size_t) {
	if c := coreOf(pid); c != nil {
		check(c.DrainLog(log, int(n)))
	}
}

//export goPushReg
func goPushReg(pid C.int, variable unsafe.Pointer, nbytes C.int) {
	if c := coreOf(pid); c != nil {
		check(c.PushReg(variable, int(nbytes)))
	}
}

//export goPopReg
func goPopReg(pid C.int, variable unsafe.Pointer) {
	if c := coreOf(pid); c != nil {
		check(c.PopReg(variable))
	}
}

//export goPut
func goPut(pid, target C.int, src, dst unsafe.Pointer, offset, nbytes C.int) {
	if c := coreOf(pid); c != nil {
		check(c.Put(int(target), src, dst, int(offset), int(nbytes)))
	}
}

//export goHPPut
func goHPPut(pid, target C.int, src, dst unsafe.Pointer, offset, nbytes C.int) {
	if c := coreOf(pid); c != nil {
		check(c.HPPut(int(target), src, dst, int(offset), int(nbytes)))
	}
}

//export goGet
func goGet(pid, source C.int, src unsafe.Pointer, offset C.int, dst unsafe.Pointer, nbytes C.int) {
	if c := coreOf(pid); c != nil {
		check(c.Get(int(source), src, int(offset), dst, int(nbytes)))
	}
}

//export goHPGet
func goHPGet(pid, source C.int, src unsafe.Pointer, offset C.int, dst unsafe.Pointer, nbytes C.int) {
	if c := coreOf(pid); c != nil {
		check(c.HPGet(int(source), src, int(offset), dst, int(nbytes)))
	}
}

//export goDirectGet
func goDirectGet(pid, source C.int, src unsafe.Pointer, offset C.int, dst unsafe.Pointer, nbytes C.int) {
	if c := coreOf(pid); c != nil {
		check(c.DirectGet(int(source), src, int(offset), dst, int(nbytes)))
	}
}

//export goDirectAddress
func goDirectAddress(pid, target C.int, variable unsafe.Pointer) unsafe.Pointer {
	c := coreOf(pid)
	if c == nil {
		return nil
	}
	addr, err := c.DirectAddress(int(target), variable)
	check(err)
	return addr
}

//export goBeginDirect
func goBeginDirect(pid, kind C.int, budget *C.int64_t) C.int {
	c := coreOf(pid)
	if c == nil {
		return 0
	}
	n, ok := c.BeginDirect(runtime.DirectKind(kind))
	*budget = C.int64_t(n)
	return boolInt(ok)
}

//export goDirectExhausted
func goDirectExhausted(pid, kind C.int) {
	if c := coreOf(pid); c != nil {
		check(c.DirectExhausted(runtime.DirectKind(kind)))
	}
}

// directDRMA carries out direct requests for the engine: its steps run on
// the core's own thread, whose logs the shim keeps (direct.c).
type directDRMA struct{}

func (directDRMA) ReadGets(int)  { C.direct_read_gets() }
func (directDRMA) WriteGets(int) { C.direct_write_gets() }
func (directDRMA) WritePuts(int) { C.direct_write_puts() }

// Sent reads core src's log of messages to dst in superstep step from the
// core table (no call into C: the engine asks once per source).
func (directDRMA) Sent(src, dst, step int) (unsafe.Pointer, int) {
	n := int(C.ebsp_active_nprocs)
	if current.cores == nil || src >= n || dst >= n {
		return nil, 0
	}
	core := &unsafe.Slice(current.cores, n)[src]
	logs := core.send_to[step&1]
	if logs == nil {
		return nil, 0
	}
	log := &unsafe.Slice(logs, n)[dst]
	if int(log.stamp) != step+1 || log.log.used == 0 {
		return nil, 0
	}
	return unsafe.Pointer(log.log.buf), int(log.log.used)
}

//export goRemoteVariable
func goRemoteVariable(pid, target C.int, variable unsafe.Pointer, remote *unsafe.Pointer, size *C.int) C.int {
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

// The host's message calls are C functions (host_api.c) that check the
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
