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
	"libebsp/faces/ebsp" // the face's Go half: what a core's stream call does
)

// Stream calls: the host makes streams (faces/ebsp/host_mem.c); the cores'
// calls (faces/ebsp/stream.c) come here, and through the face's Go half
// (faces/ebsp/stream_ops.go) to the engine, then wait in C for the
// transfer named in the result. The engine prints the
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
// id (ebsp.Stream); arg and arg2 are its int arguments, data its pointer.
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
	mv := ebsp.Stream(c, int(op), int(id), int(arg), int(arg2), data, uintptr(smallData))
	res.buffer = mv.Buffer
	res.slot = c.DMA().Slot()
	res.ticket = C.uint(mv.Wait)
	res.size = C.int(mv.Size)
	res.set_buffer = boolInt(mv.SetBuffer)
	res.again = boolInt(mv.Again)
}
