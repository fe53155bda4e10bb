// Package mpi is the world of a section whose cores are spread over the
// ranks of an Open MPI job: each rank runs consecutive pids, the engine
// reaches the others through this transport. Per barrier round of a
// section (mpi.c's mpiw_round, called by the last core of the rank to
// arrive) it sends each other rank one packed block of everything its
// cores posted for that rank's cores (none when there is nothing), after
// one all-to-all of small headers that is also the barrier and carries
// the engine's flag words; it unpacks the blocks in order of arrival. It
// knows nothing of BSP: blocks are the engine's, records opaque.
package mpi

/*
#cgo LDFLAGS: -ldl
#include <stdlib.h>
#include "mpi.h"
void mpiw_use_go_packers(void); // packers.c
*/
import "C"

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync/atomic"
	"time"
	"unsafe"

	"libebsp/engine"
)

// Process is this process's place in the MPI job.
type Process struct {
	Rank, Ranks int
	PerRank     int  // cores each rank runs (EBSP_RANK_CORES)
	agreed      bool // Agree ran: the other ranks know rank 0's first section
	finalized   bool // Finalize ran: no MPI call may follow
}

// Join starts MPI in this process (once; the library is loaded now).
func Join(perRank int) (*Process, error) {
	var rank, ranks C.int
	var why *C.char
	if C.mpiw_init(&rank, &ranks, &why) != 0 {
		return nil, errors.New(C.GoString(why))
	}
	C.mpiw_use_go_packers()
	return &Process{Rank: int(rank), Ranks: int(ranks), PerRank: perRank}, nil
}

// TestSettings makes rank delayRank wait delayMS before it sends its
// blocks in each round, and with trace every rank print the order in
// which blocks arrived (for tests of first-arrival unpacking); window > 0
// replaces the window of sends under way (for tests of their order).
func (p *Process) TestSettings(delayRank, delayMS int, trace bool, window int) {
	t := 0
	if trace {
		t = 1
	}
	C.mpiw_test_settings(C.int(delayRank), C.int(delayMS), C.int(t), C.int(window))
}

// BlockLimit makes blocks larger than bytes go as several messages (0:
// the default, 4 MiB).
func (p *Process) BlockLimit(bytes int) { C.mpiw_block_limit(C.int64_t(bytes)) }

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
	p.agreed = true
	nprocs = int(v)
	if nprocs <= 0 {
		return nprocs, nil // no section: every rank ends (Local gives none)
	}
	if C.mpiw_split(C.int(p.activeRanks(nprocs))) != 0 {
		return 0, errors.New("MPI_Comm_split failed")
	}
	return nprocs, nil
}

// EndWithoutSection is rank 0's Agree on no cores, when it ends before
// its first bsp_begin (an exit, a return from main, bsp_abort there): the
// other ranks, which wait for its count in theirs, then run none and end
// instead of waiting for ever. Rank 0 only sends: ranks that ended before
// their bsp_begin too never take the count.
func (p *Process) EndWithoutSection() {
	if p.Rank == 0 && !p.agreed && !p.finalized {
		p.Agree(0) //nolint:errcheck // ending anyway
	}
}

func (p *Process) activeRanks(nprocs int) int { return (nprocs + p.PerRank - 1) / p.PerRank }

// Local is the range of pids this rank runs in a section of nprocs cores:
// first and count (0 when the rank has none).
func (p *Process) Local(nprocs int) (first, count int) {
	first = p.Rank * p.PerRank
	count = min(p.PerRank, nprocs-first)
	return first, max(count, 0)
}

// AnnounceEnd tells ranks 0..ranks-1 (this one excepted) that this rank
// ends the job (mpi.c says how a job ends).
func (p *Process) AnnounceEnd(ranks, code int) { C.mpiw_end_announce(C.int(ranks), C.int(code)) }

// EndArrived reports whether another rank announced the end of the job.
func (p *Process) EndArrived() bool { return C.mpiw_end_arrived() != 0 }

// EndJob exits at once with code (1 for 0), without MPI_Finalize: for
// a rank that cannot end the job with the others (mpi.c).
func (p *Process) EndJob(code int) { C.mpiw_end_job(C.int(code)) }

// SendPlaces sends rank 0 a word pair per core of this rank (for a stall
// report: where each core waits, and its superstep).
func (p *Process) SendPlaces(places []int32) error {
	n := 4 * len(places)
	buf := C.malloc(C.size_t(max(n, 1)))
	defer C.free(buf)
	for i, v := range places {
		binary.LittleEndian.PutUint32(unsafe.Slice((*byte)(buf), n)[4*i:], uint32(v))
	}
	if C.mpiw_send_small(buf, C.int(n), 0, C.MPIW_TAG_PLACES) != 0 {
		return errors.New("MPI_Isend failed")
	}
	return nil
}

// ReceivePlaces collects on rank 0 what SendPlaces of the other ranks
// sent, by rank, until every other rank's arrived or the wait is over.
func (p *Process) ReceivePlaces(wait time.Duration) map[int][]int32 {
	got := map[int][]int32{}
	for end := time.Now().Add(wait); len(got) < p.Ranks-1 && time.Now().Before(end); {
		var rank, n C.int
		buf := C.mpiw_receive(C.MPIW_TAG_PLACES, &rank, &n)
		if buf == nil {
			time.Sleep(time.Millisecond)
			continue
		}
		b := C.GoBytes(buf, n)
		C.free(buf)
		places := make([]int32, len(b)/4)
		for i := range places {
			places[i] = int32(binary.LittleEndian.Uint32(b[4*i:]))
		}
		got[int(rank)] = places
	}
	return got
}

// Finalize ends MPI in this process.
func (p *Process) Finalize() {
	p.finalized = true
	C.mpiw_finalize()
}

// World is the transport of one section over the job's ranks.
type World struct {
	p             *Process
	nprocs, lo, n int
	ranks         int                             // ranks of the section
	out           [][engine.Lanes][]*engine.Block // by local source, lane, destination pid
	in            [engine.Lanes][][]*engine.Block // by lane, source pid, local destination
	external      [][]externalRecords             // by local source: OutExternal's, until the round
	posted        [engine.Lanes]atomic.Bool       // lanes to pack in the next round
	flags         **C.int32_t                     // the flag words, C memory
	err           error                           // of the last pack or unpack
	place         func(src, dst int) engine.Placement
	entries       []entryPlan // pack's plan of a rank's block
	segs          []segment
	targets       []unsafe.Pointer // unpack's: where each payload sent apart goes (nil: the rebuilt block)
}

// A record whose payload is at least apartMin bytes, in the shim's logs
// (C memory, kept until the round ends), is sent apart: its header alone
// in the block, its payload as its own messages straight from the log
// (no copy into the block), received where the engine's Placement says:
// into the put's target (no copy when the sync applies it), or into a
// block rebuilt around it. Below apartMin a message costs more than the
// copies it saves.
const apartMin = 32 << 10

// apartWalk bounds the look for large records in a part: after this many
// small records in a row the rest goes in the block as it is, so that a
// log of many small puts costs a few records' look, not a walk.
const apartWalk = 64

// apartFlag marks, in a record's kind word in a block, a record whose
// payload follows apart.
const apartFlag = 1 << 31

// segment is a run of records that goes in the block, or one record sent
// apart.
type segment struct {
	data    []byte
	apart   bool
	payload []byte // an apart record's payload when it is not after its header (OutApart)
}

// entryPlan is an entry of a rank's block: its segments and its size.
type entryPlan struct {
	lane       engine.Lane
	src, dst   int
	segs, size int // segments (w.segs[first:first+segs] after the previous entries'), bytes in the block
	apart      int
}

// part is what a source has for a destination: its engine block (Go
// memory) or records another layer keeps (C memory).
type part struct {
	data     []byte
	block    *engine.Block // the engine block data is, when it has references
	external bool
	payload  []byte // OutApart's: data is the header, this the payload
}

// active is the section's world, for the round's calls of goMPIPack and
// goMPIUnpack (mpi.c calls them through pointers, packers.c).
var active *World

// entryHeader frames one engine block in a rank's block: lane, source,
// destination, length.
const entryHeader = 16

// NewWorld is the transport of a section of nprocs cores (Agree first),
// whose rounds merge the flag words of flags (C memory: they are read in
// every round, by mpi.c).
func (p *Process) NewWorld(nprocs int, flags []*[2]atomic.Int32) (*World, error) {
	lo, n := p.Local(nprocs)
	w := &World{p: p, nprocs: nprocs, lo: lo, n: n, ranks: p.activeRanks(nprocs),
		out: make([][engine.Lanes][]*engine.Block, n), external: make([][]externalRecords, n)}
	for lane := range w.in {
		w.in[lane] = make([][]*engine.Block, nprocs)
	}
	words := unsafe.Slice((**C.int32_t)(C.malloc(C.size_t(2*len(flags))*C.size_t(unsafe.Sizeof((*C.int32_t)(nil))))), 2*len(flags))
	for i, f := range flags {
		words[2*i], words[2*i+1] = (*C.int32_t)(unsafe.Pointer(&f[0])), (*C.int32_t)(unsafe.Pointer(&f[1]))
	}
	w.flags = &words[0]
	if C.mpiw_section(C.int(w.ranks), w.flags, C.int(len(words))) != 0 {
		w.Release()
		return nil, errors.New("out of memory for the MPI buffers")
	}
	active = w
	return w, nil
}

// UsePlacement lets the world receive large puts into their targets where
// place (the engine's Machine.Placement) allows.
func (w *World) UsePlacement(place func(src, dst int) engine.Placement) { w.place = place }

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
	payload []byte // OutApart's: records is one record's header
}

// OutExternal sends records (memory the caller keeps until the next
// round) after what src packed for dst in lane.
func (w *World) OutExternal(lane engine.Lane, src, dst int, records []byte) {
	i := src - w.lo
	w.external[i] = append(w.external[i], externalRecords{lane: lane, dst: dst, records: records})
	w.Post(lane, src)
}

// OutApart sends one record, header and payload (memory the caller keeps
// until the round ends), after what src packed for dst in lane: the
// payload apart, straight from there.
func (w *World) OutApart(lane engine.Lane, src, dst int, header, payload []byte) {
	i := src - w.lo
	w.external[i] = append(w.external[i], externalRecords{lane: lane, dst: dst, records: header, payload: payload})
	w.Post(lane, src)
}

// Post marks lane for the next round, which packs it once: its blocks
// stay until Reset, and later rounds of the superstep send what was
// posted after them.
func (w *World) Post(lane engine.Lane, _ int) {
	w.posted[lane].Store(true)
	C.mpiw_posted = 1
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

// Release frees the MPI buffers and the blocks.
func (w *World) Release() {
	if active == w {
		C.mpiw_section_end()
		active = nil
	}
	C.free(unsafe.Pointer(w.flags))
	w.flags = nil
	for i := range w.out {
		for _, blocks := range w.out[i] {
			freeBlocks(blocks)
		}
	}
	for _, bySource := range w.in {
		for _, blocks := range bySource {
			freeBlocks(blocks) // views of mpi.c's buffers: forgotten
		}
	}
}

func freeBlocks(blocks []*engine.Block) {
	for _, b := range blocks {
		if b != nil {
			b.Free()
		}
	}
}

// Traffic is what this rank sent to the others in the section's rounds
// so far: MPI messages (headers and blocks) and their bytes
// (engine.TrafficCounter, for EBSP_STATS).
func (w *World) Traffic() (msgs, bytes int64) {
	var m, b C.int64_t
	C.mpiw_traffic(&m, &b)
	return int64(m), int64(b)
}

// Err is what went wrong in the last round's packing or unpacking.
func (w *World) Err() error { return w.err }

// KindOf is the barrier rank r's cores waited in, in the last round, and
// StepOf their superstep.
func KindOf(r int) int { return int(C.mpiw_kind(C.int(r))) }

// StepOf is the superstep of rank r's cores in the last round.
func StepOf(r int) int { return int(C.mpiw_step(C.int(r))) }

//export goMPIPack
func goMPIPack() C.int {
	w := active
	for r := range w.ranks {
		if r != w.p.Rank {
			if err := w.pack(r); err != nil {
				w.err = err
				return -1
			}
		}
	}
	for lane := range w.posted {
		w.posted[lane].Store(false)
	}
	for i := range w.external {
		w.external[i] = w.external[i][:0]
	}
	return 0
}

//export goMPIUnpack
func goMPIUnpack(rank C.int, buf *C.char, n C.int64_t) C.int {
	w := active
	if err := w.unpack(int(rank), unsafe.Slice((*byte)(unsafe.Pointer(buf)), int(n))); err != nil {
		w.err = fmt.Errorf("from rank %d: %v", rank, err)
		return -1
	}
	return 0
}

// pack writes into rank r's send buffer every posted block of this rank's
// cores for r's cores; the blocks of one source and destination in one
// lane go as one entry, large records' payloads apart (mpiw_send_apart).
func (w *World) pack(r int) error {
	lo, hi := r*w.p.PerRank, min((r+1)*w.p.PerRank, w.nprocs)
	w.entries, w.segs = w.entries[:0], w.segs[:0]
	size := 0
	w.eachPosted(lo, hi, func(lane engine.Lane, src, dst int, parts []part) {
		e := entryPlan{lane: lane, src: src, dst: dst}
		first := len(w.segs)
		for _, p := range parts {
			if p.block != nil {
				w.pieces(p.block)
			} else if p.payload != nil {
				w.segs = append(w.segs, segment{data: p.data, apart: true, payload: p.payload})
			} else if p.external && len(p.data) >= apartMin {
				w.split(p.data)
			} else {
				w.segs = append(w.segs, segment{data: p.data})
			}
		}
		for _, sg := range w.segs[first:] {
			if sg.apart {
				e.size += recHeader
				e.apart++
			} else {
				e.size += len(sg.data)
			}
		}
		e.segs = len(w.segs) - first
		w.entries = append(w.entries, e)
		size += entryHeader + e.size
	})
	if size == 0 {
		return nil
	}
	p := C.mpiw_send_buffer(C.int(r), C.int64_t(size))
	if p == nil {
		return errors.New("out of memory for an MPI send buffer")
	}
	buf := unsafe.Slice((*byte)(unsafe.Pointer(p)), size)
	at, seg := 0, 0
	for _, e := range w.entries {
		binary.LittleEndian.PutUint32(buf[at:], uint32(e.lane)|uint32(e.apart)<<8)
		binary.LittleEndian.PutUint32(buf[at+4:], uint32(e.src))
		binary.LittleEndian.PutUint32(buf[at+8:], uint32(e.dst))
		binary.LittleEndian.PutUint32(buf[at+12:], uint32(e.size))
		at += entryHeader
		for _, sg := range w.segs[seg : seg+e.segs] {
			if !sg.apart {
				at += copy(buf[at:], sg.data)
				continue
			}
			copy(buf[at:at+recHeader], sg.data)
			binary.LittleEndian.PutUint32(buf[at:], binary.LittleEndian.Uint32(sg.data)|apartFlag)
			at += recHeader
			n := int(binary.LittleEndian.Uint32(sg.data[12:]))
			payload := sg.payload
			if payload == nil {
				payload = sg.data[recHeader:]
			}
			if C.mpiw_send_apart(C.int(r), (*C.char)(unsafe.Pointer(&payload[0])), C.int64_t(n)) != 0 {
				return errors.New("out of memory for an MPI send")
			}
		}
		seg += e.segs
	}
	return nil
}

// pieces appends to w.segs the records of an engine block with
// references: the payloads referred to apart, straight from where they lie.
func (w *World) pieces(b *engine.Block) {
	b.Pieces(func(run, header, payload []byte) {
		if header == nil {
			w.segs = append(w.segs, segment{data: run})
		} else {
			w.segs = append(w.segs, segment{data: header, apart: true, payload: payload})
		}
	})
}

// RefMin: the world sends a payload of apartMin bytes or more that an
// engine block refers to from where it lies, in the round that follows,
// and is done with it when that round ends (engine.RefOut).
func (w *World) RefMin() int { return apartMin }

// recHeader is the size of a record's header (engine/transport.go: kind,
// two arguments, payload length; the payload follows, padded to 8).
const recHeader = 16

// split appends to w.segs the records of data (whole records, C memory),
// those with a payload of apartMin bytes or more apart.
func (w *World) split(data []byte) {
	at, start, small := 0, 0, 0
	for at+recHeader <= len(data) && small < apartWalk {
		n := int(binary.LittleEndian.Uint32(data[at+12:]))
		size := recHeader + (n+7)&^7
		if n < 0 || size > len(data)-at {
			break // not a record: the receiver says so
		}
		if n < apartMin {
			small++
		} else {
			if at > start {
				w.segs = append(w.segs, segment{data: data[start:at]})
			}
			w.segs = append(w.segs, segment{data: data[at : at+size], apart: true})
			start, small = at+size, 0
		}
		at += size
	}
	if start < len(data) {
		w.segs = append(w.segs, segment{data: data[start:]})
	}
}

// eachPosted visits, for each posted lane, source of this rank and
// destination among lo..hi-1, what the source has for it: its block, then
// its external records (records are whole and padded, so they join).
func (w *World) eachPosted(lo, hi int, visit func(lane engine.Lane, src, dst int, parts []part)) {
	var parts []part
	for lane := range w.posted {
		if !w.posted[lane].Load() {
			continue
		}
		for i := range w.out {
			for dst := lo; dst < hi; dst++ {
				parts = parts[:0]
				if blocks := w.out[i][lane]; blocks != nil && blocks[dst] != nil && len(blocks[dst].Bytes()) > 0 {
					p := part{data: blocks[dst].Bytes()}
					if blocks[dst].Refs() > 0 {
						p.block = blocks[dst]
					}
					parts = append(parts, p)
				}
				for _, e := range w.external[i] {
					if int(e.lane) == lane && e.dst == dst && len(e.records) > 0 {
						parts = append(parts, part{data: e.records, external: true, payload: e.payload})
					}
				}
				if len(parts) > 0 {
					visit(engine.Lane(lane), w.lo+i, dst, parts)
				}
			}
		}
	}
}

// unpack makes the received blocks show rank r's block (Reset ends it):
// in place, or, for entries with payloads sent apart, rebuilt in a staging
// buffer around the payloads that do not go straight to their targets.
func (w *World) unpack(r int, buf []byte) error {
	stage, err := w.planApart(buf)
	if err != nil {
		return err
	}
	var staged []byte
	if stage > 0 {
		p := C.mpiw_stage_buffer(C.int(r), C.int64_t(stage))
		if p == nil {
			return errors.New("out of memory for an MPI receive")
		}
		staged = unsafe.Slice((*byte)(unsafe.Pointer(p)), stage)
	}
	next, at := 0, 0
	for len(buf) > 0 {
		lane, apart, src, dst, n := entryOf(buf)
		data := buf[entryHeader : entryHeader+n]
		buf = buf[entryHeader+n:]
		if apart > 0 {
			start := at
			for len(data) > 0 {
				k := binary.LittleEndian.Uint32(data)
				if k&apartFlag == 0 {
					size := recHeader + (int(binary.LittleEndian.Uint32(data[12:]))+7)&^7
					at += copy(staged[at:], data[:size])
					data = data[size:]
					continue
				}
				size := int(binary.LittleEndian.Uint32(data[12:]))
				into := w.targets[next]
				next++
				if into == nil {
					copy(staged[at:], data[:recHeader])
					binary.LittleEndian.PutUint32(staged[at:], k&^apartFlag)
					into = unsafe.Pointer(&staged[at+recHeader])
					at += recHeader + (size+7)&^7
				}
				if C.mpiw_recv_apart(C.int(r), (*C.char)(into), C.int64_t(size)) != 0 {
					return errors.New("an MPI receive failed")
				}
				data = data[recHeader:]
			}
			data = staged[start:at]
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
		// in place: mpi.c keeps the block (and the staging buffer) until
		// the next round with blocks of the same parity, a round of a
		// later sync (only syncs post blocks, and a sync has at most two
		// rounds), which all of this rank's cores have begun
		if err := b.ViewKept(data); err != nil {
			return err
		}
	}
	return nil
}

// entryOf reads an entry's header (checked by planApart).
func entryOf(buf []byte) (lane, apart, src, dst, n int) {
	word := binary.LittleEndian.Uint32(buf)
	return int(word & 0xff), int(word >> 8), int(binary.LittleEndian.Uint32(buf[4:])),
		int(binary.LittleEndian.Uint32(buf[8:])), int(binary.LittleEndian.Uint32(buf[12:]))
}

// planApart checks a rank's block and decides where each payload sent
// apart goes (w.targets, in order), asking the engine's Placement record
// by record; it returns the bytes the rebuilt entries take.
func (w *World) planApart(buf []byte) (int, error) {
	w.targets = w.targets[:0]
	stage := 0
	for len(buf) > 0 {
		if len(buf) < entryHeader {
			return 0, errors.New("a truncated block")
		}
		lane, apart, src, dst, n := entryOf(buf)
		if lane >= engine.Lanes || src >= w.nprocs || !w.Local(dst) || entryHeader+n > len(buf) {
			return 0, errors.New("a block with a bad entry")
		}
		data := buf[entryHeader : entryHeader+n]
		buf = buf[entryHeader+n:]
		if apart == 0 {
			continue
		}
		var pl engine.Placement
		if w.place != nil {
			pl = w.place(src, dst)
		}
		var header [recHeader]byte
		for len(data) > 0 {
			if len(data) < recHeader {
				return 0, errors.New("a block with a truncated record")
			}
			copy(header[:], data)
			k := binary.LittleEndian.Uint32(data)
			size := int(binary.LittleEndian.Uint32(data[12:]))
			if k&apartFlag == 0 {
				rec := recHeader + (size+7)&^7
				if size < 0 || rec > len(data) {
					return 0, errors.New("a block with a truncated record")
				}
				pl.Record(header[:], false)
				stage += rec
				data = data[rec:]
				continue
			}
			if size < apartMin {
				return 0, errors.New("a block with a bad record")
			}
			binary.LittleEndian.PutUint32(header[:], k&^apartFlag)
			into := pl.Record(header[:], true)
			w.targets = append(w.targets, into)
			if into == nil {
				stage += recHeader + (size+7)&^7
			}
			data = data[recHeader:]
		}
	}
	return stage, nil
}

// Ranks is the number of ranks of the section.
func (w *World) Ranks() int { return w.ranks }

// First is the first pid of rank r.
func (w *World) First(r int) int { return r * w.p.PerRank }

// LocalRange is the pids this rank runs in the section: the first, and
// how many.
func (w *World) LocalRange() (first, n int) { return w.lo, w.n }
