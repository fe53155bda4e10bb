// Package mpi is the world of a section whose cores are spread over the
// ranks of an Open MPI job: each rank runs consecutive pids, the engine
// reaches the others through this transport. Per barrier round of a
// section it sends each other rank one packed block of everything its
// cores posted for that rank's cores (none when there is nothing), after
// one all-to-all of small headers that is also the barrier and carries
// the sync flags; it unpacks the blocks in order of arrival. It knows
// nothing of BSP: blocks are the engine's, records opaque.
package mpi

/*
#cgo LDFLAGS: -ldl
#include <stdlib.h>
#include "mpi.h"
*/
import "C"

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync/atomic"
	"unsafe"

	"libebsp/engine"
)

// Process is this process's place in the MPI job.
type Process struct {
	Rank, Ranks int
	PerRank     int // cores each rank runs (EBSP_RANK_CORES)
}

// Join starts MPI in this process (once; the library is loaded now).
func Join(perRank int) (*Process, error) {
	var rank, ranks C.int
	var why *C.char
	if C.mpiw_init(&rank, &ranks, &why) != 0 {
		return nil, errors.New(C.GoString(why))
	}
	return &Process{Rank: int(rank), Ranks: int(ranks), PerRank: perRank}, nil
}

// Cores is the number of cores of the whole job.
func (p *Process) Cores() int { return p.Ranks * p.PerRank }

// Agree returns rank 0's nprocs on every rank (the other ranks' counts
// are ignored, as in an SPMD section pid 0's count decides), and makes
// the ranks that run some of the nprocs cores the section's group.
func (p *Process) Agree(nprocs int) (int, error) {
	v := C.int(nprocs)
	if C.mpiw_bcast_int(&v) != 0 {
		return 0, errors.New("MPI_Bcast failed")
	}
	nprocs = int(v)
	if C.mpiw_split(C.int(p.activeRanks(nprocs))) != 0 {
		return 0, errors.New("MPI_Comm_split failed")
	}
	return nprocs, nil
}

func (p *Process) activeRanks(nprocs int) int { return (nprocs + p.PerRank - 1) / p.PerRank }

// Local is the range of pids this rank runs in a section of nprocs cores:
// first and count (0 when the rank has none).
func (p *Process) Local(nprocs int) (first, count int) {
	first = p.Rank * p.PerRank
	count = min(p.PerRank, nprocs-first)
	return first, max(count, 0)
}

// Abort ends every rank of the job with code.
func (p *Process) Abort(code int) { C.mpiw_abort(C.int(code)) }

// Finalize ends MPI in this process.
func (p *Process) Finalize() { C.mpiw_finalize() }

// World is the transport of one section over the job's ranks.
type World struct {
	p             *Process
	nprocs, lo, n int
	ranks         int                             // ranks of the section
	out           [][engine.Lanes][]*engine.Block // by local source, lane, destination pid
	in            [engine.Lanes][][]*engine.Block // by lane, source pid, local destination
	posted        [engine.Lanes]atomic.Bool
	external      [][]externalRecords // by local source: OutExternal's, until the round
	round         int
	send, recv    []cBuffer // by rank
	hdrOut, hdrIn []int64
	sendP, recvP  []*C.char
	sendN, recvN  []int64
}

// cBuffer is C memory that MPI reads or writes after the call that posted it.
type cBuffer struct {
	p   *C.char
	cap int
}

func (b *cBuffer) reserve(n int) error {
	if n <= b.cap {
		return nil
	}
	p := (*C.char)(C.realloc(unsafe.Pointer(b.p), C.size_t(n)))
	if p == nil {
		return fmt.Errorf("out of memory for a %d-byte MPI buffer", n)
	}
	b.p, b.cap = p, n
	return nil
}

func (b *cBuffer) bytes(n int) []byte { return unsafe.Slice((*byte)(unsafe.Pointer(b.p)), n) }

// header words each rank sends each other rank per round
const (
	hdrBytes = iota // of the block that follows (0: none)
	hdrKind         // the barrier the rank's cores wait in (the scheduler's kind)
	hdrFlags        // the flag words (Round), two per set
)

// Diverged is a round in which the ranks' cores wait in different
// barriers (bsp_sync on one, bsp_end on another): the program's cores took
// different paths.
type Diverged struct{ Kinds []int } // by rank

func (d *Diverged) Error() string { return "the ranks' cores wait in different barriers" }

// entryHeader frames one engine block in a rank's block: lane, source,
// destination, length.
const entryHeader = 16

// NewWorld is the transport of a section of nprocs cores (Agree first).
func (p *Process) NewWorld(nprocs int) *World {
	lo, n := p.Local(nprocs)
	r := p.activeRanks(nprocs)
	w := &World{p: p, nprocs: nprocs, lo: lo, n: n, ranks: r,
		out: make([][engine.Lanes][]*engine.Block, n), external: make([][]externalRecords, n),
		send: make([]cBuffer, r), recv: make([]cBuffer, r),
		sendP: make([]*C.char, r), recvP: make([]*C.char, r),
		sendN: make([]int64, r), recvN: make([]int64, r)}
	for lane := range w.in {
		w.in[lane] = make([][]*engine.Block, nprocs)
	}
	return w
}

func (w *World) rankOf(pid int) int { return pid / w.p.PerRank }

// LocalMemory: the cores of a rank share its memory (engine.LocalMemory).
func (w *World) LocalMemory() bool { return true }

// Local reports whether core pid runs in this process.
func (w *World) Local(pid int) bool { return pid >= w.lo && pid < w.lo+w.n }

// Out is the block core src (of this rank) packs for dst in lane.
func (w *World) Out(lane engine.Lane, src, dst int) *engine.Block {
	blocks := w.out[src-w.lo][lane]
	if blocks == nil {
		blocks = make([]*engine.Block, w.nprocs)
		w.out[src-w.lo][lane] = blocks
	}
	if blocks[dst] == nil {
		blocks[dst] = engine.NewBlock()
	}
	return blocks[dst]
}

// externalRecords are records another layer keeps (engine.ExternalOut).
type externalRecords struct {
	lane    engine.Lane
	dst     int
	records []byte
}

// OutExternal sends records (memory the caller keeps until the next
// round) after what src packed for dst in lane.
func (w *World) OutExternal(lane engine.Lane, src, dst int, records []byte) {
	i := src - w.lo
	w.external[i] = append(w.external[i], externalRecords{lane, dst, records})
	w.Post(lane, src)
}

// Post marks lane for the next round.
func (w *World) Post(lane engine.Lane, _ int) {
	if !w.posted[lane].Load() {
		w.posted[lane].Store(true)
	}
}

// In is what src posted for dst: in place from a core of this rank, else
// what the last rounds brought.
func (w *World) In(lane engine.Lane, src, dst int) *engine.Block {
	if w.Local(src) {
		if blocks := w.out[src-w.lo][lane]; blocks != nil {
			return blocks[dst]
		}
		return nil
	}
	if blocks := w.in[lane][src]; blocks != nil {
		return blocks[dst-w.lo]
	}
	return nil
}

// Done is nothing: received blocks stay until Reset.
func (w *World) Done(engine.Lane, int) {}

// Reset empties what core pid packed and what it received.
func (w *World) Reset(pid int) {
	for _, blocks := range w.out[pid-w.lo] {
		for _, b := range blocks {
			if b != nil {
				b.Clear()
			}
		}
	}
	for lane := range w.in {
		for _, blocks := range w.in[lane] {
			if blocks != nil && blocks[pid-w.lo] != nil {
				blocks[pid-w.lo].Clear()
			}
		}
	}
}

// Release frees the MPI buffers.
func (w *World) Release() {
	for i := range w.send {
		C.free(unsafe.Pointer(w.send[i].p))
		C.free(unsafe.Pointer(w.recv[i].p))
	}
	w.send, w.recv = nil, nil
}

// Round completes a barrier round with the other ranks: called by the last
// core of this rank to arrive, while the others wait. It sends what the
// cores posted since the last round, merges the sync flags of every rank
// into flags and unpacks what the others sent.
func (w *World) Round(flags []*[2]atomic.Int32, kind int) error {
	me := w.p.Rank
	hdrWords := hdrFlags + 2*len(flags)
	if len(w.hdrOut) != w.ranks*hdrWords {
		w.hdrOut, w.hdrIn = make([]int64, w.ranks*hdrWords), make([]int64, w.ranks*hdrWords)
	}
	for r := range w.ranks {
		n := 0
		if r != me {
			var err error
			if n, err = w.pack(r); err != nil {
				return err
			}
		}
		h := w.hdrOut[r*hdrWords:]
		h[hdrBytes], h[hdrKind] = int64(n), int64(kind)
		for i, f := range flags {
			h[hdrFlags+2*i], h[hdrFlags+2*i+1] = int64(f[0].Load()), int64(f[1].Load())
		}
		w.sendN[r], w.sendP[r] = int64(n), w.send[r].p
	}
	for lane := range w.posted {
		w.posted[lane].Store(false)
	}
	for i := range w.external {
		w.external[i] = w.external[i][:0]
	}
	if C.mpiw_alltoall((*C.int64_t)(&w.hdrOut[0]), (*C.int64_t)(&w.hdrIn[0]), C.int(hdrWords)) != 0 {
		return errors.New("MPI_Alltoall failed")
	}
	if d := w.diverged(hdrWords); d != nil {
		return d
	}
	for r := range w.ranks {
		h := w.hdrIn[r*hdrWords:]
		for i, f := range flags {
			for j := range f {
				if v := int32(h[hdrFlags+2*i+j]); v > f[j].Load() {
					f[j].Store(v)
				}
			}
		}
		w.recvN[r] = 0
		if r != me && h[hdrBytes] > 0 {
			if err := w.recv[r].reserve(int(h[hdrBytes])); err != nil {
				return err
			}
			w.recvN[r] = h[hdrBytes]
		}
		w.recvP[r] = w.recv[r].p
	}
	w.round++
	tag := C.int(w.round & 0x7fff)
	sendP, recvP := (**C.char)(C.malloc(C.size_t(w.ranks)*C.size_t(unsafe.Sizeof(w.sendP[0])))), (**C.char)(C.malloc(C.size_t(w.ranks)*C.size_t(unsafe.Sizeof(w.recvP[0]))))
	defer C.free(unsafe.Pointer(sendP))
	defer C.free(unsafe.Pointer(recvP))
	copy(unsafe.Slice(sendP, w.ranks), w.sendP)
	copy(unsafe.Slice(recvP, w.ranks), w.recvP)
	if C.mpiw_post(C.int(w.ranks), tag, sendP, (*C.int64_t)(&w.sendN[0]), recvP, (*C.int64_t)(&w.recvN[0])) != 0 {
		return errors.New("MPI_Isend or MPI_Irecv failed")
	}
	for {
		r := int(C.mpiw_next_arrival())
		if r == -1 {
			return nil
		}
		if r < 0 {
			return errors.New("MPI_Waitany failed")
		}
		if err := w.unpack(w.recv[r].bytes(int(w.recvN[r]))); err != nil {
			return fmt.Errorf("from rank %d: %v", r, err)
		}
	}
}

// pack writes into rank r's send buffer every posted block of this rank's
// cores for r's cores, and returns its length.
func (w *World) pack(r int) (int, error) {
	lo, hi := r*w.p.PerRank, min((r+1)*w.p.PerRank, w.nprocs)
	size := 0
	w.eachPosted(lo, hi, func(_ engine.Lane, _, _ int, data []byte) { size += entryHeader + pad8(len(data)) })
	if size == 0 {
		return 0, nil
	}
	if err := w.send[r].reserve(size); err != nil {
		return 0, err
	}
	buf := w.send[r].bytes(size)
	at := 0
	w.eachPosted(lo, hi, func(lane engine.Lane, src, dst int, data []byte) {
		binary.LittleEndian.PutUint32(buf[at:], uint32(lane))
		binary.LittleEndian.PutUint32(buf[at+4:], uint32(src))
		binary.LittleEndian.PutUint32(buf[at+8:], uint32(dst))
		binary.LittleEndian.PutUint32(buf[at+12:], uint32(len(data)))
		copy(buf[at+entryHeader:], data)
		at += entryHeader + pad8(len(data))
	})
	return size, nil
}

// eachPosted visits the non-empty blocks of posted lanes from this rank's
// cores to cores lo..hi-1.
func (w *World) eachPosted(lo, hi int, visit func(lane engine.Lane, src, dst int, data []byte)) {
	for lane := range w.posted {
		if !w.posted[lane].Load() {
			continue
		}
		for i := range w.out {
			if blocks := w.out[i][lane]; blocks != nil {
				for dst := lo; dst < hi; dst++ {
					if b := blocks[dst]; b != nil && len(b.Bytes()) > 0 {
						visit(engine.Lane(lane), w.lo+i, dst, b.Bytes())
					}
				}
			}
			for _, e := range w.external[i] {
				if int(e.lane) == lane && e.dst >= lo && e.dst < hi && len(e.records) > 0 {
					visit(e.lane, w.lo+i, e.dst, e.records)
				}
			}
		}
	}
}

// unpack loads a rank's block into the received blocks.
func (w *World) unpack(buf []byte) error {
	for len(buf) > 0 {
		if len(buf) < entryHeader {
			return errors.New("a truncated block")
		}
		lane := int(binary.LittleEndian.Uint32(buf))
		src := int(binary.LittleEndian.Uint32(buf[4:]))
		dst := int(binary.LittleEndian.Uint32(buf[8:]))
		n := int(binary.LittleEndian.Uint32(buf[12:]))
		if lane >= engine.Lanes || src >= w.nprocs || !w.Local(dst) || entryHeader+n > len(buf) {
			return errors.New("a block with a bad entry")
		}
		blocks := w.in[lane][src]
		if blocks == nil {
			blocks = make([]*engine.Block, w.n)
			w.in[lane][src] = blocks
		}
		b := blocks[dst-w.lo]
		if b == nil {
			b = engine.NewBlock()
			blocks[dst-w.lo] = b
		}
		if err := b.Append(buf[entryHeader : entryHeader+n]); err != nil { // Reset emptied it
			return err
		}
		buf = buf[min(len(buf), entryHeader+pad8(n)):]
	}
	return nil
}

func pad8(n int) int { return (n + 7) &^ 7 }

// diverged is the ranks' barrier kinds when they differ in this round.
func (w *World) diverged(hdrWords int) *Diverged {
	kinds := make([]int, w.ranks)
	same := true
	for r := range w.ranks {
		kinds[r] = int(w.hdrIn[r*hdrWords+hdrKind])
		same = same && kinds[r] == kinds[0]
	}
	if same {
		return nil
	}
	return &Diverged{Kinds: kinds}
}

// Ranks is the number of ranks of the section.
func (w *World) Ranks() int { return w.ranks }

// First is the first pid of rank r.
func (w *World) First(r int) int { return r * w.p.PerRank }
