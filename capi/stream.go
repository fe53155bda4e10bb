package main

/*
#include "mem.h"
*/
import "C"

import (
	"unsafe"

	"libebsp/runtime"
)

// Stream calls: the host makes streams (capi/mem_host_api.c); the cores'
// calls (capi/stream_api.c) come here for the engine's decision and then
// wait in C for the transfer named in the result.

//export goStreamCreate
func goStreamCreate(size, tokenSize C.int, data unsafe.Pointer) unsafe.Pointer {
	m := hostMachine("bsp_stream_create")
	if m == nil {
		return nil
	}
	area, err := m.CreateStream(int(size), int(tokenSize), data)
	if err != nil {
		complain(err.Error())
		return nil
	}
	return area
}

//export goCreateDownStream
func goCreateDownStream(data unsafe.Pointer, pid, size, chunkSize C.int) C.int {
	m := hostMachine("ebsp_create_down_stream")
	if m == nil {
		return -1
	}
	n, err := m.CreateDownStream(data, int(pid), int(size), int(chunkSize))
	if err != nil {
		complain(err.Error())
		return -1
	}
	return C.int(n)
}

//export goCreateUpStream
func goCreateUpStream(pid, size, chunkSize C.int) unsafe.Pointer {
	m := hostMachine("ebsp_create_up_stream")
	if m == nil {
		return nil
	}
	area, err := m.CreateUpStream(int(pid), int(size), int(chunkSize))
	if err != nil {
		complain(err.Error())
		return nil
	}
	return area
}

// streamResult hands the engine's Move to C, or prints the misuse and
// returns 0 (the call's failure value; the run goes on).
func streamResult(c *runtime.Core, mv runtime.Move, err *runtime.Error, res *C.struct_stream_result) C.int {
	if err != nil {
		warn(err)
		return 0
	}
	res.buffer = mv.Buffer
	res.size = C.int(mv.Size)
	res.ticket = C.uint(mv.Wait)
	res.slot = c.DMA().Slot()
	return C.int(mv.Size)
}

//export goStreamOpen
func goStreamOpen(pid C.int, call *C.char, id, api C.int, res *C.struct_stream_result) C.int {
	c := coreOf(pid)
	if c == nil {
		return 0
	}
	mv, err := c.StreamOpen(C.GoString(call), int(id), runtime.StreamAPI(api))
	return streamResult(c, mv, err, res)
}

//export goStreamMoveDown
func goStreamMoveDown(pid C.int, call *C.char, id, api, preload C.int, res *C.struct_stream_result) C.int {
	c := coreOf(pid)
	if c == nil {
		return 0
	}
	mv, err := c.StreamMoveDown(C.GoString(call), int(id), runtime.StreamAPI(api), preload != 0)
	return streamResult(c, mv, err, res)
}

//export goStreamMoveUp
func goStreamMoveUp(pid C.int, call *C.char, id, api C.int, data unsafe.Pointer, n, wait C.int, res *C.struct_stream_result) C.int {
	c := coreOf(pid)
	if c == nil {
		return 0
	}
	mv, err := c.StreamMoveUp(C.GoString(call), int(id), runtime.StreamAPI(api), data, int(n), wait != 0)
	return streamResult(c, mv, err, res)
}

//export goStreamMoveChunkUp
func goStreamMoveChunkUp(pid C.int, call *C.char, id C.int, chunk unsafe.Pointer, prealloc C.int, res *C.struct_stream_result) C.int {
	c := coreOf(pid)
	if c == nil {
		return 0
	}
	mv, err := c.MoveChunkUp(C.GoString(call), int(id), chunk, prealloc != 0)
	return streamResult(c, mv, err, res)
}

//export goStreamSeek
func goStreamSeek(pid C.int, call *C.char, id, api, delta C.int) {
	c := coreOf(pid)
	if c == nil {
		return
	}
	if err := c.StreamSeek(C.GoString(call), int(id), runtime.StreamAPI(api), int(delta)); err != nil {
		warn(err)
	}
}

// goStreamClose returns 1 when the stream may be released once the
// transfer in res is complete (goStreamRelease), 0 on misuse.
//
//export goStreamClose
func goStreamClose(pid C.int, call *C.char, id, api C.int, res *C.struct_stream_result) C.int {
	c := coreOf(pid)
	if c == nil {
		return 0
	}
	wait, err := c.StreamClose(C.GoString(call), int(id), runtime.StreamAPI(api))
	if streamResult(c, runtime.Move{Wait: wait}, err, res); err != nil {
		return 0
	}
	return 1
}

//export goStreamRelease
func goStreamRelease(pid, id, api C.int) {
	if c := coreOf(pid); c != nil {
		c.StreamRelease(int(id), runtime.StreamAPI(api))
	}
}

//export goStreamSetUpChunkSize
func goStreamSetUpChunkSize(pid C.int, call *C.char, id, n C.int) {
	c := coreOf(pid)
	if c == nil {
		return
	}
	if err := c.SetUpChunkSize(C.GoString(call), int(id), int(n)); err != nil {
		warn(err)
	}
}
