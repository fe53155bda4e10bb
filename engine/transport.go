package engine

import (
	"encoding/binary"
	"errors"
	"unsafe"
)

// The transport layer (Scrambler's packing and transmission layers,
// BSPonMPI's A2A): every core packs records into one block per destination
// and lane; the blocks of a lane are exchanged; every receiver walks the
// blocks for it in source order, each block in the order it was packed.
// It knows nothing of BSP: a record is a kind, two 32-bit arguments and a
// payload, and what a kind means belongs to the layer that registered a
// handler for it (DRMA, BSMP). The MPI world (world/mpi) implements it
// over the ranks of an Open MPI job; nothing above it changed.

// Lane is one stream of blocks, exchanged and delivered on its own. The
// superstep (superstep.go) decides when each lane is delivered, e.g. get
// requests before get replies before puts.
type Lane uint8

// Lanes is the number of lanes a transport carries.
const Lanes = 3

const lanes = Lanes

// Kind is a record kind; the layers define them (see handlers).
type Kind uint32

// maxKinds bounds the kinds a block counts.
const maxKinds = 8

// recordHeader is a record's header in a block: its kind, two arguments
// and the payload's length (the C shim packs records in it, cdefs.go).
type recordHeader struct {
	kind   uint32 `c:"kind"`
	a      uint32 `c:"a"`
	b      uint32 `c:"b"`
	length uint32 `c:"length"`
}

// recHeader is the size of a record header.
const recHeader = int(unsafe.Sizeof(recordHeader{}))

// record is one record as a receiver sees it.
type record struct {
	kind Kind
	a, b uint32
	data []byte
}

// Block is what one core packed for one destination in one lane during a
// round, with the payload bytes of each kind (the receiver may size its
// buffers before it unpacks: BSMP's inbox).
type Block struct {
	buffer
	view  bool             // mem is another's (View)
	kept  bool             // and stays until the viewing core's next sync (ViewKept)
	refs  []unsafe.Pointer // where the payloads of records with a reference lie (addRef)
	count [maxKinds]int    // records of each kind
	bytes [maxKinds]int    // their payload bytes
}

func newBlock() *Block { return &Block{buffer: buffer{outside: true}} }

// NewBlock is an empty block, for a transport in another package.
func NewBlock() *Block { return newBlock() }

// Bytes is the block's packed records, as they travel between processes.
// Valid until the block changes.
func (b *Block) Bytes() []byte { return b.mem[:b.used] }

// Load makes the block hold the packed records in data (what Bytes gave
// in the sending process), counting them by kind; an error when data is
// not a sequence of whole records of known kinds.
func (b *Block) Load(data []byte) error {
	b.clear()
	return b.Append(data)
}

// Append adds the packed records in data to the block's (Load).
func (b *Block) Append(data []byte) error {
	if b.view {
		return errors.New("engine: Append to a viewed block")
	}
	if err := b.grow(len(data)); err != nil {
		return err
	}
	copy(b.take(len(data)), data)
	return b.countRecords(data)
}

// countRecords adds the records in data to the block's counts of each kind.
func (b *Block) countRecords(data []byte) error {
	for mem := data; len(mem) > 0; {
		if len(mem) < recHeader {
			return errBadBlock
		}
		kind := Kind(binary.LittleEndian.Uint32(mem[0:]))
		n := int(binary.LittleEndian.Uint32(mem[12:]))
		if kind == 0 || kind >= maxKinds || n < 0 || recordSize(n) > len(mem) {
			return errBadBlock
		}
		b.count[kind]++
		b.bytes[kind] += n
		mem = mem[recordSize(n):]
	}
	return nil
}

// Free returns the block's memory (a view's: forgets it); it may be used
// again, and then takes new memory.
func (b *Block) Free() {
	b.Clear()
	b.free()
}

// Clear empties the block, keeping its memory (a view's: forgetting it).
func (b *Block) Clear() {
	if b.view {
		b.mem, b.view, b.kept = nil, false, false
	}
	b.clear()
}

// View makes the block show the packed records in data, memory it does
// not own (a transport's receive buffer, valid until the engine has
// delivered them), counting them; Clear ends the view. A viewed block is
// only read.
func (b *Block) View(data []byte) error {
	b.Clear()
	b.mem, b.used, b.view = data, len(data), true
	return b.countRecords(data)
}

// ViewKept is View of data outside the Go heap that the transport keeps
// unchanged until the destination core's next sync has begun: the
// engine may then queue the block's messages where they lie.
func (b *Block) ViewKept(data []byte) error {
	err := b.View(data)
	b.kept = err == nil
	return err
}

var errBadBlock = errors.New("engine: a received block is not a sequence of records")

// pad8 rounds n up to a multiple of 8 so record headers stay aligned.
func pad8(n int) int { return (n + 7) &^ 7 }

// recordSize is what a record with an n-byte payload takes in a block.
func recordSize(n int) int { return recHeader + pad8(n) }

// add appends a record and returns its payload, to be filled by the caller.
func (b *Block) add(kind Kind, a1, a2 uint32, n int) ([]byte, error) {
	size := recordSize(n)
	if b.used+size > len(b.mem) {
		if err := b.grow(size); err != nil {
			return nil, err
		}
	}
	rec := b.take(size)
	binary.LittleEndian.PutUint32(rec[0:], uint32(kind))
	binary.LittleEndian.PutUint32(rec[4:], a1)
	binary.LittleEndian.PutUint32(rec[8:], a2)
	binary.LittleEndian.PutUint32(rec[12:], uint32(n))
	b.count[kind]++
	b.bytes[kind] += n
	return rec[recHeader : recHeader+n], nil
}

// each walks the block's records in the order they were packed.
func (b *Block) each(visit func(record)) {
	mem := b.mem[:b.used]
	for len(mem) > 0 {
		r := record{
			kind: Kind(binary.LittleEndian.Uint32(mem[0:])),
			a:    binary.LittleEndian.Uint32(mem[4:]),
			b:    binary.LittleEndian.Uint32(mem[8:]),
		}
		n := int(binary.LittleEndian.Uint32(mem[12:]))
		r.data = mem[recHeader : recHeader+n]
		visit(r)
		mem = mem[recordSize(n):]
	}
}

// clear empties the block, keeping its memory.
func (b *Block) clear() {
	b.reset()
	b.refs = b.refs[:0]
	b.count, b.bytes = [maxKinds]int{}, [maxKinds]int{}
}

// refFlag marks, in the kind word of a record in an outgoing block, a
// record whose payload is a reference (addRef): the index of its bytes'
// place in refs, and how many, 8 bytes each.
const refFlag = 1 << 30

const refSize = 16

// addRef appends a record of kind whose n payload bytes stay at p: a
// transport that reads them there (RefOut) sends them from p. Only for
// blocks such a transport carries to another process.
func (b *Block) addRef(kind Kind, a1, a2 uint32, p unsafe.Pointer, n int) error {
	ref, err := b.add(kind, a1, a2, refSize)
	if err != nil {
		return err
	}
	binary.LittleEndian.PutUint32(b.mem[b.used-recordSize(refSize):], uint32(kind)|refFlag)
	binary.LittleEndian.PutUint64(ref[0:], uint64(len(b.refs)))
	binary.LittleEndian.PutUint64(ref[8:], uint64(n))
	b.bytes[kind] += n - refSize
	b.refs = append(b.refs, p)
	return nil
}

// Refs is the number of records of the block whose payload is a
// reference: Bytes is then not what travels, Pieces is.
func (b *Block) Refs() int { return len(b.refs) }

// Pieces visits the block's records in order as they travel: runs of
// whole records (header nil), and each record whose payload is a
// reference as its header (payload length n) and the n bytes it refers
// to, which the transport reads there during the round that follows.
func (b *Block) Pieces(visit func(run, header, payload []byte)) {
	mem := b.mem[:b.used]
	start := 0
	for at := 0; at < len(mem); {
		kind := binary.LittleEndian.Uint32(mem[at:])
		size := recordSize(int(binary.LittleEndian.Uint32(mem[at+12:])))
		if kind&refFlag != 0 {
			if at > start {
				visit(mem[start:at], nil, nil)
			}
			header := make([]byte, recHeader)
			copy(header, mem[at:at+recHeader])
			p := b.refs[binary.LittleEndian.Uint64(mem[at+recHeader:])]
			n := int(binary.LittleEndian.Uint64(mem[at+recHeader+8:]))
			binary.LittleEndian.PutUint32(header[0:], kind&^refFlag)
			binary.LittleEndian.PutUint32(header[12:], uint32(n))
			visit(nil, header, bytesAt(p, n))
			start = at + size
		}
		at += size
	}
	if start < len(mem) {
		visit(mem[start:], nil, nil)
	}
}

// RefOut is implemented by a transport that carries blocks with
// references (addRef) to cores of other processes: it reads the bytes
// referred to where they lie, in the round that follows the step that
// packed them, and is done with them when that round ends. The engine
// then answers a get of at least RefMin bytes from another process with
// a reference to its source (serveGet): no copy of its own.
type RefOut interface{ RefMin() int }

// Transport moves blocks between the cores of one run: the world below
// the engine. The cores may live in several processes (an MPI world); the
// engine reaches into another core's memory only where Local says it is
// in this process, and sends a record otherwise.
//
// A round of a lane: every core packs into Out(lane, self, dst) for any
// dst, then calls Post(lane, self) (a core that packed nothing in any lane
// may skip it); after a barrier of all cores, every core reads In(lane,
// src, self) for every src, then calls Done(lane, self); after another
// barrier, Reset(self) empties what the core packed, for the next round.
type Transport interface {
	// Out is the block core src packs for dst in lane: the same one for
	// the whole run (callers may keep it).
	Out(lane Lane, src, dst int) *Block
	// Post says that src packed everything for lane in this round.
	Post(lane Lane, src int)
	// In is what src posted for dst in lane; nil when nothing.
	In(lane Lane, src, dst int) *Block
	// Done says that dst has read everything sent to it in lane.
	Done(lane Lane, dst int)
	// Reset empties what core pid packed and received.
	Reset(pid int)
	// Release returns the transport's memory (the end of bsp_begin's runs).
	Release()
	// Local tells whether core pid runs in this process, where its memory
	// can be read and written directly.
	Local(pid int) bool
}

// sharedMemory is the in-process transport: a receiver reads the sender's
// block in place (the barrier between sync steps is the exchange), so the
// only copy is the one the receiving layer makes.
type sharedMemory struct {
	out [][lanes][]*Block // by source, lane, destination
}

func newSharedMemory(n int) Transport {
	return &sharedMemory{out: make([][lanes][]*Block, n)}
}

func (s *sharedMemory) Out(lane Lane, src, dst int) *Block {
	blocks := s.out[src][lane]
	if blocks == nil {
		blocks = make([]*Block, len(s.out))
		s.out[src][lane] = blocks
	}
	blk := blocks[dst]
	if blk == nil {
		blk = newBlock()
		blocks[dst] = blk
	}
	return blk
}

func (s *sharedMemory) Post(Lane, int) {}

func (s *sharedMemory) In(lane Lane, src, dst int) *Block {
	if blocks := s.out[src][lane]; blocks != nil {
		return blocks[dst]
	}
	return nil
}

func (s *sharedMemory) Done(Lane, int) {}

func (s *sharedMemory) Reset(pid int) {
	for _, blocks := range s.out[pid] {
		for _, blk := range blocks {
			if blk != nil {
				blk.clear()
			}
		}
	}
}

func (s *sharedMemory) Local(int) bool { return true }

func (s *sharedMemory) Release() {
	for i := range s.out {
		freeBlocks(s.out[i][:])
		s.out[i] = [lanes][]*Block{}
	}
}

// freeBlocks frees every block of the lanes given.
func freeBlocks(lanes [][]*Block) {
	for _, blocks := range lanes {
		for _, blk := range blocks {
			if blk != nil {
				blk.Free()
			}
		}
	}
}

// handler processes one record that core src sent to core c.
type handler func(c *Core, src int, r record)

// handlers maps each record kind to the layer that defined it; the layers
// fill it in their init functions.
var handlers [maxKinds]handler

// registerKind gives kind to a layer's handler; a kind has one owner.
func registerKind(kind Kind, h handler) {
	if kind == 0 || kind >= maxKinds || handlers[kind] != nil {
		panic("engine: record kind registered twice or out of range")
	}
	handlers[kind] = h
}

// deliver hands every record sent to c in lane to its kind's handler, in
// source order and, per source, in packing order; the puts they list are
// written at its end, in that order.
func (c *Core) deliver(lane Lane) {
	t := c.m.comm.transport
	for src := range c.m.cores {
		if blk := t.In(lane, src, c.pid); blk != nil && blk.used > 0 {
			if !c.m.stats.on {
				switch blk.records() {
				case blk.count[kindPut]:
					c.applyPuts(src, blk)
					continue
				case blk.count[kindGetRequest]:
					c.serveGets(src, blk)
					continue
				case blk.count[kindGetReply]:
					c.completeGets(blk)
					continue
				case blk.count[kindMessage]:
					if blk.kept {
						c.queueMessagesInPlace(blk)
						continue
					}
				}
			}
			blk.each(func(r record) { handlers[r.kind](c, src, r) })
		}
	}
	c.writeListed()
	c.writeRepliesInOrder(lane)
	t.Done(lane, c.pid)
}

// records is the number of records in the block.
func (b *Block) records() int {
	n := 0
	for _, k := range b.count {
		n += k
	}
	return n
}

// incoming sums, over every source, the records of kind waiting for c in
// lane and their payload bytes.
func (c *Core) incoming(lane Lane, kind Kind) (count, bytes int) {
	t := c.m.comm.transport
	for src := range c.m.cores {
		if blk := t.In(lane, src, c.pid); blk != nil {
			count += blk.count[kind]
			bytes += blk.bytes[kind]
		}
	}
	return count, bytes
}
