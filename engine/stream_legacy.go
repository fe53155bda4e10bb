package engine

import (
	"strconv"
	"unsafe"
)

// The deprecated stream calls, as the board's library carries them out.
// Each core has its own streams, numbered from 0 in order of creation; the
// state of each (cursor, buffers) starts afresh with every run.
//
//   - A down stream is chained like a bsp_stream_create stream.
//     ebsp_open_down_stream starts fetching the first chunk into a buffer;
//     ebsp_move_chunk_down hands it out (or, with no chunk preloaded, reads
//     the one at the cursor) and with prealloc fetches the next.
//   - An up stream is raw. ebsp_open_up_stream hands out a chunk buffer of
//     the largest chunk size; ebsp_move_chunk_up sends all of it to the
//     cursor, moves the cursor on by as much and hands out a buffer for the
//     next chunk (with prealloc the other one of two, while the chunk is
//     being sent).

// Texts of the board's deprecated calls.
const (
	errMixedUpDown = "BSP ERROR: mixed up and down streams"
	errCloseClosed = "BSP ERROR: tried to close closed stream"
	errOpenOpened  = "BSP ERROR: tried to open opened stream"
	errJumpOut     = "BSP ERROR: tried jumping past bounds of stream"
	errOpenUpTwice = "BSP ERROR: tried creating opened stream"
	upHeaderSize   = 4 // an up chunk buffer starts with the chunk's size
)

// legacyList is this core's deprecated streams, by number.
func (c *Core) legacyList() []*openStream {
	st := c.streamState()
	if st.legacy == nil {
		ms := &c.m.memory
		ms.streamMu.Lock()
		st.legacy = make([]*openStream, len(ms.legacy[c.pid]))
		for i, s := range ms.legacy[c.pid] {
			st.legacy[i] = &openStream{s: s}
		}
		ms.streamMu.Unlock()
	}
	return st.legacy
}

// legacy is this core's deprecated stream number id, or nil (after
// printing the board's text) when there is none; ids are unsigned on the
// board, so negative ones are huge.
func (c *Core) legacy(id int) *openStream {
	l := c.legacyList()
	if id < 0 || id >= len(l) {
		c.say(errNoSuchStream)
		return nil
	}
	return l[id]
}

// legacyOfKind is legacy for a call on streams of one kind.
func (c *Core) legacyOfKind(id int, kind streamKind) *openStream {
	o := c.legacy(id)
	if o != nil && o.s.kind != kind {
		c.say(errMixedUpDown)
		return nil
	}
	return o
}

func legacyName(id int) string { return "this core's stream " + strconv.Itoa(id) }

// OpenDownStream is ebsp_open_down_stream: it starts fetching the first
// chunk and hands out its buffer; it returns the largest chunk size.
func (c *Core) OpenDownStream(id int) StreamResult {
	o := c.legacyOfKind(id, downStream)
	switch {
	case o == nil:
		return StreamResult{}
	case o.cur != nil || o.next != nil:
		c.say(errOpenOpened)
		return StreamResult{}
	}
	o.cursor = 0
	if o.next = c.Malloc(o.s.tokenSize + headerSize); o.next == nil {
		c.say(errStreamMemory)
		return StreamResult{}
	}
	c.readToken("ebsp_open_down_stream", legacyName(id), o, o.next, false)
	return StreamResult{Buffer: unsafe.Add(o.next, headerSize), SetBuffer: true, Size: o.s.tokenSize}
}

// OpenUpStream is ebsp_open_up_stream: it hands out the buffer for the
// first chunk and returns the largest chunk size.
func (c *Core) OpenUpStream(id int) StreamResult {
	o := c.legacyOfKind(id, upStream)
	switch {
	case o == nil:
		return StreamResult{}
	case o.cur != nil:
		c.say(errOpenUpTwice)
		return StreamResult{}
	}
	if o.cur = c.Malloc(o.s.tokenSize + upHeaderSize); o.cur == nil {
		c.say(errStreamMemory)
		return StreamResult{}
	}
	*(*int32)(o.cur) = int32(o.s.tokenSize)
	o.cursor = 0
	return StreamResult{Buffer: unsafe.Add(o.cur, upHeaderSize), SetBuffer: true, Size: o.s.tokenSize}
}

// CloseLegacy is ebsp_close_down_stream (up false) or ebsp_close_up_stream.
// As on the board, a down stream opened but never moved is "closed" (its
// chunk is in the spare buffer, not the current one).
func (c *Core) CloseLegacy(id int, up bool) StreamResult {
	o := c.legacyOfKind(id, map[bool]streamKind{false: downStream, true: upStream}[up])
	switch {
	case o == nil:
		return StreamResult{}
	case o.cur == nil:
		c.say(errCloseClosed)
		return StreamResult{}
	}
	if mv, wait := c.again(o); wait {
		return mv
	}
	c.dropBuffers(o)
	return StreamResult{}
}

// MoveChunkDown is ebsp_move_chunk_down: it returns the chunk's size, 0 at
// the end (with the address NULL).
func (c *Core) MoveChunkDown(id int, prealloc bool) StreamResult {
	const call = "ebsp_move_chunk_down"
	o := c.legacyOfKind(id, downStream)
	switch {
	case o == nil:
		return StreamResult{}
	case o.cur == nil && o.next == nil: // the board would read into address 0
		c.diag(call, "%s is not open", legacyName(id))
		return StreamResult{}
	}
	if mv, wait := c.again(o); wait {
		return mv
	}
	return c.moveDown(call, legacyName(id), o, prealloc)
}

// MoveChunkUp is ebsp_move_chunk_up: it sends the current chunk buffer
// (whatever the kernel passes in *address, as on the board) and hands out
// the buffer for the next chunk; it returns the largest chunk size.
func (c *Core) MoveChunkUp(id int, prealloc bool) StreamResult {
	const call = "ebsp_move_chunk_up"
	o := c.legacyOfKind(id, upStream)
	switch {
	case o == nil:
		return StreamResult{}
	case o.cur == nil: // the board would send from address 0
		c.diag(call, "%s is not open", legacyName(id))
		return StreamResult{}
	}
	if mv, wait := c.again(o); wait {
		return mv
	}
	var mv StreamResult
	if prealloc {
		if o.next == nil {
			if o.next = c.Malloc(o.s.tokenSize + upHeaderSize); o.next == nil {
				c.say(errStreamMemory)
				return StreamResult{}
			}
		}
		c.sendChunk(call, id, o, false)
		o.cur, o.next = o.next, o.cur
	} else {
		if o.next != nil {
			c.freeLocal(o.next)
			o.next = nil
		}
		mv.Wait = c.sendChunk(call, id, o, true)
	}
	*(*int32)(o.cur) = int32(o.s.tokenSize)
	mv.Buffer, mv.SetBuffer, mv.Size = unsafe.Add(o.cur, upHeaderSize), true, o.s.tokenSize
	return mv
}

// sendChunk starts sending the current chunk buffer to the cursor and
// moves the cursor on. The chunk's size is the int before the chunk (the
// largest chunk size unless the kernel wrote there). What would run past
// the stream's end (over other memory, on the board) is not sent.
func (c *Core) sendChunk(call string, id int, o *openStream, now bool) uint32 {
	n := int(*(*int32)(o.cur))
	room := o.s.areaSize - o.cursor
	switch {
	case n < 0: // the board's DMA engine would write over memory
		c.diag(call, "chunk size %d for %s", n, legacyName(id))
		return 0
	case n > room:
		if c.strictChecks() {
			c.diag(call, "a chunk of %d bytes does not fit in %s: %d bytes of room left (the board wrote past its end)",
				n, legacyName(id), room)
		}
		n = room
	}
	var t uint32
	if n > 0 {
		push := c.DMA().Push
		if now {
			push = c.DMA().PushNow
		}
		t = push(unsafe.Add(o.s.area, o.cursor), unsafe.Add(o.cur, upHeaderSize), n)
		o.last = t
	}
	o.cursor += n
	return t
}

// SetUpChunkSize is ebsp_set_up_chunk_size, as the board's library has it:
// it stores nbytes in the first 4 bytes of the current chunk buffer (the
// int after the chunk's size), so the chunk still goes up whole.
func (c *Core) SetUpChunkSize(id, nbytes int) StreamResult {
	const call = "ebsp_set_up_chunk_size"
	l := c.legacyList()
	if id < 0 || id >= len(l) { // the board does not check: it would write anywhere
		c.diag(call, "there is no stream %d for this core (the host made %s for it)", id, countStreams(len(l)))
		return StreamResult{}
	}
	o := l[id]
	if o.cur == nil { // the board would write to local memory address 4
		c.diag(call, "%s is not open", legacyName(id))
		return StreamResult{}
	}
	if c.strictChecks() {
		c.diag(call, "the board's library stores %d in the first 4 bytes of the chunk of %s and sends the whole chunk of %d bytes",
			nbytes, legacyName(id), o.s.tokenSize)
	}
	*(*int32)(unsafe.Add(o.cur, 4)) = int32(nbytes)
	return StreamResult{}
}

// MoveDownCursor is ebsp_move_down_cursor: forward or back over chunks; at
// either end the board's text is printed and the cursor stays there. A
// preloaded chunk is not dropped: the next ebsp_move_chunk_down still hands
// it out.
func (c *Core) MoveDownCursor(id, delta int) StreamResult {
	const call = "ebsp_move_down_cursor"
	o := c.legacy(id)
	switch {
	case o == nil:
		return StreamResult{}
	case o.s.kind != downStream: // the board would take data for chunk sizes
		c.diag(call, "%s is an up stream: it has no chunk headers to move over", legacyName(id))
		return StreamResult{}
	}
	if c.walk(call, legacyName(id), o, delta, true) == walkedToEnd {
		c.say(errJumpOut)
	}
	return StreamResult{}
}

// ResetDownCursor is ebsp_reset_down_cursor: the next chunk moved down is
// the first. (The board's loop stops 8 bytes before the stream and then
// reads the allocator's bytes there as a header; here the cursor goes to
// the first chunk, as EBSP documents.)
func (c *Core) ResetDownCursor(id int) StreamResult {
	const call = "ebsp_reset_down_cursor"
	o := c.legacy(id)
	switch {
	case o == nil:
		return StreamResult{}
	case o.s.kind != downStream:
		c.diag(call, "%s is an up stream: it has no chunk headers to move over", legacyName(id))
		return StreamResult{}
	}
	o.cursor = 0
	return StreamResult{}
}

func itoa(v int) string { return strconv.Itoa(v) }
