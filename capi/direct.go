package main

// The engine's DirectDRMA: the steps of the direct requests, which the
// shim's logs carry out on the calling core's thread (direct.c), and the
// logs read in place from the C core table. It calls into the C request
// path only; the exports that path calls are comm.go's.

/*
#include "shim.h"
#include "direct.h"
*/
import "C"

import (
	"unsafe"

	"libebsp/engine"
)

// directDRMA carries out direct requests for the engine: its steps run on
// the core's own thread, whose logs the shim keeps (direct.c).
type directDRMA struct{}

func (directDRMA) ReadGets(int) { C.direct_read_gets() }

func (directDRMA) WriteGets(int) { C.direct_write_gets() }

func (directDRMA) WritePuts(int) { C.direct_write_puts() }

// putWriter is the engine's PutWriter: the puts it lists are written by
// the code that writes the direct logs (direct.c), from the C heap, where
// the engine's blocks and lists live (putmem.c).
type putWriter struct{}

func (putWriter) WritePuts(list unsafe.Pointer, n int) {
	C.direct_write_list((*C.struct_put_write)(list), C.size_t(n))
}

func (putWriter) Alloc(n int) (unsafe.Pointer, int) {
	var usable C.size_t
	p := C.putmem_alloc(C.size_t(n), &usable)
	return p, int(usable)
}

func (putWriter) Free(p unsafe.Pointer) { C.putmem_free(p) }

func init() { engine.SetPutWriter(putWriter{}) }

// GetsWrite looks through core pid's log of direct gets (pid waits in a
// barrier).
func (directDRMA) GetsWrite(pid int, p unsafe.Pointer, n, max int) bool {
	core, _ := coreTable(pid)
	return core == nil || C.direct_gets_write(core, p, C.size_t(n), C.size_t(max)) != 0
}

// coreTable is core pid's entry of the C core table of the calling
// core's section, and the section's core count; nil when there is none.
func coreTable(pid int) (*C.struct_ebsp_core, int) {
	sec := sectionHere()
	n := int(sec.nprocs)
	if sec.cores == nil || pid < 0 || pid >= n {
		return nil, n
	}
	return &unsafe.Slice(sec.cores, n)[pid], n
}

// Wired hands the engine the records core src packed for cores of other
// processes in this superstep (wire_put), and empties their logs.
func (directDRMA) Wired(src int, visit func(dst int, records []byte)) {
	core, n := coreTable(src)
	if core == nil || core.wire_to == nil {
		return
	}
	stamp := core.superstep + 1
	for dst, log := range unsafe.Slice(core.wire_to, n) {
		if log.stamp == stamp && log.log.used > 0 {
			visit(dst, unsafe.Slice((*byte)(unsafe.Pointer(log.log.buf)), int(log.log.used)))
			unsafe.Slice(core.wire_to, n)[dst].log.used = 0
		}
	}
}

// WiredApart hands the engine the large hpputs core src made to cores of
// other processes in this superstep (wire_hpput): each record's header
// and its source, which stays unchanged until the sync ends; and forgets
// them.
func (directDRMA) WiredApart(src int, visit func(dst int, header, payload []byte)) {
	core, _ := coreTable(src)
	if core == nil || core.own.nrefs == 0 || core.own.refs_stamp != core.superstep+1 {
		return
	}
	refs := unsafe.Slice(core.own.wire_refs, int(core.own.nrefs))
	for i := range refs {
		r := &refs[i]
		if r.dst < 0 {
			continue // copied into the log before a later record (wire_settle_refs)
		}
		header := unsafe.Slice((*byte)(unsafe.Pointer(&r.header)), C.WIRE_HEADER)
		visit(int(r.dst), header, unsafe.Slice((*byte)(r.src), int(r.header.length)))
	}
	core.own.nrefs = 0
}

// Tally hands the engine what core pid counted of its direct requests in
// this superstep, per other core (direct.c), and zeroes it.
func (directDRMA) Tally(pid int, visit func(peer int, t engine.DirectTally)) {
	core, n := coreTable(pid)
	if core == nil || core.own.tally == nil {
		return
	}
	for peer, t := range unsafe.Slice(core.own.tally, n) {
		if t != (C.struct_ebsp_tally{}) {
			visit(peer, engine.DirectTally{
				Puts: int(t.puts), PutBytes: int(t.put_bytes),
				Gets: int(t.gets), GetBytes: int(t.get_bytes),
				Sends: int(t.sends), SendBytes: int(t.send_bytes),
			})
			unsafe.Slice(core.own.tally, n)[peer] = C.struct_ebsp_tally{}
		}
	}
}

// Sent reads core src's log of messages to dst in superstep step from the
// core table (no call into C: the engine asks once per source).
func (directDRMA) Sent(src, dst, step int) (unsafe.Pointer, int) {
	core, n := coreTable(src)
	if core == nil || dst >= n {
		return nil, 0
	}
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
