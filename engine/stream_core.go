package engine

import (
	"math"
	"unsafe"

	"libebsp/emesh"
)

// The cores' stream calls, as the board's library carries them out. A
// stream in use has a cursor (the header before the next token) and up to
// two token buffers in the core's local memory, each a copy of a header
// followed by room for the largest token:
//
//   - bsp_stream_open only takes the stream (any core, any id not in use)
//     and puts the cursor at the start; the buffers come with the first
//     move down.
//   - A move down reads the header at the cursor into the current buffer
//     and fetches the token after it by DMA, moving the cursor past it.
//     With preload it then fetches the next token into the other buffer at
//     once, moving the cursor past that one too; the next move down swaps
//     the buffers instead of reading.
//   - A move up writes the token straight from the caller's memory at the
//     cursor (size rounded up to a multiple of 8), the header after it with
//     the stream ending there, and moves the cursor past it.
//   - A seek walks the cursor over headers and drops a preloaded token.
//
// So moves down, up and seeks may come in any order. A call that touches
// the stream's memory or buffers first waits for its previous transfer.

// openStream is a core's state of a stream: on the board it lives in the
// kernel's ebsp_stream handle, or for the deprecated calls in the core's
// copy of its stream descriptors.
type openStream struct {
	s      *Stream
	cursor int            // area offset of the header before the next token
	cur    unsafe.Pointer // buffer of the token handed out last (or being sent up), or nil
	next   unsafe.Pointer // buffer of the preloaded token (the spare chunk buffer), or nil
	last   uint32         // DMA ticket of the stream's newest transfer
}

// coreStreams is a core's stream state in one run.
type coreStreams struct {
	open   map[int]*openStream // bsp_stream_create streams this core has open, by id
	legacy []*openStream       // this core's deprecated streams, by number; made at first use
}

func (c *Core) streamState() *coreStreams {
	if c.streams == nil {
		c.streams = &coreStreams{open: map[int]*openStream{}}
	}
	return c.streams
}

// StreamResult is the outcome of a stream call for the C side.
type StreamResult struct {
	// Again: nothing was done; wait for DMA ticket Wait and make the same
	// call again (the call waits for the stream's previous transfer, and a
	// core thread never waits inside the engine).
	Again bool
	// Wait is the transfer to wait for before returning to the kernel
	// (0: none).
	Wait uint32
	// Size is the call's return value.
	Size int
	// Buffer is handed to the kernel (*buffer, *address) when SetBuffer.
	Buffer    unsafe.Pointer
	SetBuffer bool
}

// The board's texts, printed through ebsp_message.
const (
	errNoSuchStream  = "BSP ERROR: stream does not exist"
	errStreamInUse   = "BSP ERROR: stream with id %d is in use"
	errStreamMemory  = "BSP ERROR: could not allocate enough memory for stream"
	errStreamFull    = "BSP ERROR: Stream %d has %d space left, token of size %d can not be moved up."
	warnTokenTooLong = "BSP WARNING: Moving token of size %d up to stream %d with max token size %d"
	errTokenTooLong  = "BSP ERROR: Stream contained token larger (%d) than maximum token size (%d) for stream. (truncated)"
)

// again asks the C side to wait for the stream's previous transfer first.
func (c *Core) again(o *openStream) (StreamResult, bool) {
	if o.last != 0 && !c.DMA().Done(o.last) {
		return StreamResult{Again: true, Wait: o.last}, true
	}
	return StreamResult{}, false
}

func (c *Core) freeLocal(p unsafe.Pointer) {
	local := c.m.memory.mem.Local(c.pid)
	if off, ok := local.Offset(p); ok {
		local.Free(off)
	}
}

// bufSize is the size of the token in a token buffer (its header's second int).
func bufSize(buf unsafe.Pointer) int { return int(*(*int32)(unsafe.Add(buf, 4))) }

// readToken reads the header at the cursor into buf and starts fetching
// the token after it into buf, past the header; a token larger than the
// stream's token size is cut to it (the cursor still moves past all of it).
// now: the caller waits for the transfer at once. It returns the ticket (0
// when nothing is fetched: the end of the stream).
func (c *Core) readToken(call, name string, o *openStream, buf unsafe.Pointer, now bool) uint32 {
	s := o.s
	prev, size := s.prevSize(o.cursor), s.nextSize(o.cursor)
	var t uint32
	if size != 0 && (size < 0 || o.cursor+2*headerSize+size > s.areaSize) {
		c.diag(call, "%s: the header at byte %d of its area announces a token of %d bytes, which runs out of the area; read as the end", name, o.cursor, size)
		size = 0
	}
	if size != 0 {
		from := unsafe.Add(s.area, o.cursor+headerSize)
		o.cursor += headerSize + size
		if size > s.tokenSize {
			c.say(errTokenTooLong, size, s.tokenSize)
			size = s.tokenSize
		}
		push := c.DMA().Push
		if now {
			push = c.DMA().PushNow
		}
		t = push(unsafe.Add(buf, headerSize), from, size)
		o.last = t
	}
	*(*int32)(buf) = int32(prev)
	*(*int32)(unsafe.Add(buf, 4)) = int32(size)
	return t
}

// moveDown is a move down on a chained stream: the token at the cursor
// goes to the kernel, in the current buffer (read now, or swapped in from
// the preload), and with preload the next one is fetched.
func (c *Core) moveDown(call, name string, o *openStream, preload bool) StreamResult {
	var wait uint32
	if o.next == nil {
		wait = c.readToken(call, name, o, o.cur, true)
	} else {
		o.cur, o.next = o.next, o.cur
	}
	if bufSize(o.cur) == 0 {
		return StreamResult{SetBuffer: true} // the end: *buffer = NULL
	}
	mv := StreamResult{Buffer: unsafe.Add(o.cur, headerSize), SetBuffer: true, Wait: wait}
	if preload {
		if o.next == nil {
			if o.next = c.Malloc(o.s.tokenSize + headerSize); o.next == nil {
				c.say(errStreamMemory)
				return mv // the token is handed out, yet the call returns 0
			}
		}
		c.readToken(call, name, o, o.next, false)
	} else if o.next != nil {
		c.freeLocal(o.next)
		o.next = nil
	}
	mv.Size = bufSize(o.cur)
	return mv
}

// StreamOpen is bsp_stream_open: it returns the stream's token size.
func (c *Core) StreamOpen(id int) StreamResult {
	const call = "bsp_stream_open"
	ms := &c.m.memory
	ms.streamMu.Lock()
	n := len(ms.streams)
	var s *Stream
	inUse := false
	if id >= 0 && id < n {
		s = ms.streams[id]
		if inUse = s.owner != noOwner; !inUse {
			s.owner = c.pid
		}
	}
	ms.streamMu.Unlock()
	switch {
	case id < 0: // the board reads a descriptor before the table
		c.diag(call, "there is no stream %d (the host made %s)", id, countStreams(n))
		return StreamResult{}
	case s == nil:
		c.say(errNoSuchStream)
		return StreamResult{}
	case inUse:
		c.say(errStreamInUse, id)
		return StreamResult{}
	}
	c.streamState().open[id] = &openStream{s: s}
	return StreamResult{Size: s.tokenSize}
}

// opened finds a stream this core has open. Using a handle that is not
// open is undefined on the board (it crashes, or works on a stream the
// core does not own, or corrupts the descriptor table on a second close):
// here it is reported and the call does nothing.
func (c *Core) opened(call string, id int) *openStream {
	if o := c.streamState().open[id]; o != nil {
		return o
	}
	ms := &c.m.memory
	ms.streamMu.Lock()
	n, owner := len(ms.streams), noOwner
	if id >= 0 && id < n {
		owner = ms.streams[id].owner
	}
	ms.streamMu.Unlock()
	switch {
	case id < 0 || id >= n:
		c.diag(call, "there is no stream %d (the host made %s)", id, countStreams(n))
	case owner != noOwner:
		c.diag(call, "stream %d is open on core %02d, not on this core", id, owner)
	default:
		c.diag(call, "stream %d is not open on this core (closed already, or never opened)", id)
	}
	return nil
}

// StreamNullHandle reports a stream call given a NULL handle (the C side
// does nothing more).
func (c *Core) StreamNullHandle(call string) {
	c.diag(call, "the stream handle is NULL")
}

// StreamClose is bsp_stream_close: it waits for the stream's transfer,
// frees its buffers and lets any core open it.
func (c *Core) StreamClose(id int) StreamResult {
	o := c.opened("bsp_stream_close", id)
	if o == nil {
		return StreamResult{}
	}
	if mv, wait := c.again(o); wait {
		return mv
	}
	c.dropBuffers(o)
	delete(c.streams.open, id)
	c.m.memory.streamMu.Lock()
	o.s.owner = noOwner
	c.m.memory.streamMu.Unlock()
	return StreamResult{}
}

func (c *Core) dropBuffers(o *openStream) {
	for _, p := range []unsafe.Pointer{o.cur, o.next} {
		if p != nil {
			c.freeLocal(p)
		}
	}
	o.cur, o.next = nil, nil
}

// StreamMoveDown is bsp_stream_move_down: it returns the token's size, 0
// at the end of the stream (with the buffer NULL).
func (c *Core) StreamMoveDown(id int, preload bool) StreamResult {
	const call = "bsp_stream_move_down"
	o := c.opened(call, id)
	if o == nil {
		return StreamResult{}
	}
	if mv, wait := c.again(o); wait {
		return mv
	}
	if o.cur == nil {
		if o.cur = c.Malloc(o.s.tokenSize + headerSize); o.cur == nil {
			c.say(errStreamMemory)
			return StreamResult{}
		}
	}
	return c.moveDown(call, streamName(id), o, preload)
}

// roundToken is the board's rounding of a token size up to a multiple of
// 8, in C int arithmetic.
func roundToken(n int) int {
	v := int32(n) + 7
	return int(v / 8 * 8)
}

// StreamMoveUp is bsp_stream_move_up: it writes n bytes of data, rounded
// up to a multiple of 8 (the padding is zeros here; on the board it was
// whatever followed data), as the token at the cursor, after which the
// stream ends. It returns the rounded size, 0 when there is no room.
func (c *Core) StreamMoveUp(id int, data unsafe.Pointer, n int, wait bool) StreamResult {
	return c.streamMoveUp(id, data, 0, n, wait)
}

// StreamMoveUpNumber is bsp_stream_move_up with data a number below 4096
// (small), which the shim does not pass on as a pointer (no such number
// may be a Go pointer): never readable, reported where Describe would.
func (c *Core) StreamMoveUpNumber(id int, small uintptr, n int, wait bool) StreamResult {
	return c.streamMoveUp(id, nil, small, n, wait)
}

func (c *Core) streamMoveUp(id int, data unsafe.Pointer, small uintptr, n int, wait bool) StreamResult {
	const call = "bsp_stream_move_up"
	o := c.opened(call, id)
	if o == nil {
		return StreamResult{}
	}
	if mv, wait := c.again(o); wait {
		return mv
	}
	s := o.s
	size := roundToken(n)
	switch {
	case size < 0: // the board's DMA engine would write over memory
		c.diag(call, "token size %d for stream %d", n, id)
		return StreamResult{}
	case size > s.tokenSize:
		c.say(warnTokenTooLong, size, id, s.tokenSize)
	}
	left, need := uint32(s.areaSize-o.cursor), uint32(size)+2*headerSize
	if left < need {
		c.say(errStreamFull, id, left, need)
		return StreamResult{}
	}
	if small != 0 && size > 0 {
		bad := emesh.BadMemory{P: small, At: small, N: n}
		c.diag(call, "stream %d: %s", id, bad.Describe("the source"))
		return StreamResult{}
	}
	if data == nil && size > 0 { // the board would send its local memory from address 0
		c.diag(call, "NULL data for stream %d", id)
		return StreamResult{}
	}
	var t uint32
	dst := unsafe.Add(s.area, o.cursor+headerSize)
	if size > 0 {
		// the data is the program's: checked now, and when the engine
		// copies it (goDmaRun reports that)
		var problem string
		if t, problem = c.DMA().PushChecked(call, dst, data, n); problem != "" {
			c.diag(call, "stream %d: %s", id, problem)
			return StreamResult{}
		}
		o.last = t
		clear(unsafe.Slice((*byte)(unsafe.Add(dst, n)), size-n))
	}
	s.setNext(o.cursor, size)
	s.setHeader(o.cursor+headerSize+size, size, 0)
	o.cursor += headerSize + size
	mv := StreamResult{Size: size}
	if wait {
		mv.Wait = t
	}
	return mv
}

// StreamSeek is bsp_stream_seek: forward over up to delta tokens, stopping
// at the end; back over up to -delta, stopping at a token after a zero size
// (the start); math.MinInt32 goes straight to the start. A preloaded token
// is dropped, so a seek after a move down with preload counts from the
// token after the one preloaded.
func (c *Core) StreamSeek(id, delta int) StreamResult {
	const call = "bsp_stream_seek"
	o := c.opened(call, id)
	if o == nil {
		return StreamResult{}
	}
	if o.next != nil {
		if mv, wait := c.again(o); wait {
			return mv
		}
	}
	c.walk(call, streamName(id), o, delta, false)
	if o.next != nil {
		c.freeLocal(o.next)
		o.next = nil
	}
	return StreamResult{}
}

// walkResult is how far a cursor walk got.
type walkResult int

const (
	walked        walkResult = iota // over all the tokens asked for
	walkedToEnd                     // stopped at a size 0: the start or the end
	walkedCorrupt                   // stopped at a size leading out of the area (reported)
)

// walk moves a cursor over delta tokens of a chained stream, as
// bsp_stream_seek does or, with legacy, ebsp_move_down_cursor.
func (c *Core) walk(call, name string, o *openStream, delta int, legacy bool) walkResult {
	s := o.s
	if !legacy && delta == math.MinInt32 {
		o.cursor = 0
		return walked
	}
	for ; delta > 0; delta-- {
		size := s.nextSize(o.cursor)
		if size == 0 {
			return walkedToEnd
		}
		if size < 0 || o.cursor+2*headerSize+size > s.areaSize {
			c.diag(call, "%s: the header at byte %d of its area announces a token of %d bytes, which runs out of the area", name, o.cursor, size)
			return walkedCorrupt
		}
		o.cursor += headerSize + size
	}
	for ; delta < 0; delta++ {
		prev := s.prevSize(o.cursor)
		if prev == 0 {
			return walkedToEnd
		}
		if prev < 0 || headerSize+prev > o.cursor {
			c.diag(call, "%s: the header at byte %d of its area announces a token of %d bytes before it, which runs out of the area", name, o.cursor, prev)
			return walkedCorrupt
		}
		o.cursor -= headerSize + prev
	}
	return walked
}

func streamName(id int) string { return "stream " + itoa(id) }

func countStreams(n int) string {
	switch n {
	case 0:
		return "none"
	case 1:
		return "only stream 0"
	}
	return "streams 0.." + itoa(n-1)
}
