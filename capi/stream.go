package main

/*
#include <stdlib.h>
#include "mem.h"
#include "shim.h"
*/
import "C"

import (
	"errors"
	"unsafe"

	"libebsp/engine"
)

// Stream calls: the host makes streams (faces/ebsp/host_mem.c); the cores'
// calls (faces/ebsp/stream.c) come here for the engine to carry out, then
// wait in C for the transfer named in the result. The engine prints the
// board's texts itself (through engine.Probes.Print).

// hostStreamError prints a failure of a host stream call: the board's own
// line on stdout, or one of ours on stderr.
func hostStreamError(err error) {
	var text engine.HostText
	if errors.As(err, &text) {
		cs := C.CString(string(text) + "\n")
		C.out_stdout(cs)
		C.free(unsafe.Pointer(cs))
		return
	}
	complain(err.Error())
}

//export goStreamCreate
func goStreamCreate(size, tokenSize C.int, data unsafe.Pointer) unsafe.Pointer {
	m := hostMachine("bsp_stream_create")
	if m == nil {
		return nil
	}
	area, err := m.CreateStream(int(size), int(tokenSize), data)
	if err != nil {
		hostStreamError(err)
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
		hostStreamError(err)
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
		hostStreamError(err)
	}
	return area
}

// goStreamNullHandle reports a core's stream call with a NULL handle.
//
//export goStreamNullHandle
func goStreamNullHandle(pid C.int, call *C.char) {
	if c := coreOf(pid); c != nil {
		c.StreamNullHandle(C.GoString(call))
	}
}

// goStream carries out a core's stream call op (enum stream_op) on stream
// id; arg and arg2 are its int arguments, data its pointer.
//
//export goStream
func goStream(pid, op, id, arg, arg2 C.int, data unsafe.Pointer, smallData C.uintptr_t, res *C.struct_stream_result) {
	if smallPointers("bsp_stream_move_up", data) {
		return
	}
	c := coreOf(pid)
	if c == nil {
		return
	}
	var mv engine.StreamResult
	switch op {
	case C.STREAM_OPEN:
		mv = c.StreamOpen(int(id))
	case C.STREAM_CLOSE:
		mv = c.StreamClose(int(id))
	case C.STREAM_MOVE_DOWN:
		mv = c.StreamMoveDown(int(id), arg != 0)
	case C.STREAM_MOVE_UP:
		if smallData != 0 { // a number below 4096, passed as nil (shim.h)
			mv = c.StreamMoveUpNumber(int(id), uintptr(smallData), int(arg), arg2 != 0)
		} else {
			mv = c.StreamMoveUp(int(id), data, int(arg), arg2 != 0)
		}
	case C.STREAM_SEEK:
		mv = c.StreamSeek(int(id), int(arg))
	case C.LEGACY_OPEN_DOWN:
		mv = c.OpenDownStream(int(id))
	case C.LEGACY_OPEN_UP:
		mv = c.OpenUpStream(int(id))
	case C.LEGACY_CLOSE_DOWN:
		mv = c.CloseLegacy(int(id), false)
	case C.LEGACY_CLOSE_UP:
		mv = c.CloseLegacy(int(id), true)
	case C.LEGACY_MOVE_DOWN:
		mv = c.MoveChunkDown(int(id), arg != 0)
	case C.LEGACY_MOVE_UP:
		mv = c.MoveChunkUp(int(id), arg != 0)
	case C.LEGACY_MOVE_CURSOR:
		mv = c.MoveDownCursor(int(id), int(arg))
	case C.LEGACY_RESET_CURSOR:
		mv = c.ResetDownCursor(int(id))
	case C.LEGACY_SET_UP_CHUNK_SIZE:
		mv = c.SetUpChunkSize(int(id), int(arg))
	}
	res.buffer = mv.Buffer
	res.slot = c.DMA().Slot()
	res.ticket = C.uint(mv.Wait)
	res.size = C.int(mv.Size)
	res.set_buffer = boolInt(mv.SetBuffer)
	res.again = boolInt(mv.Again)
}
