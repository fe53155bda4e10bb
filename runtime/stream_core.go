package runtime

import (
	"unsafe"
)

// StreamAPI tells which family of calls names a stream, and so what its
// number means.
type StreamAPI int

const (
	// CurrentStreams is bsp_stream_*: the number is the stream id.
	CurrentStreams StreamAPI = iota
	// LegacyDown is the deprecated down-stream calls: the number is the
	// core's own count of the streams made for it.
	LegacyDown
	// LegacyUp is the deprecated up-stream calls, numbered like LegacyDown.
	LegacyUp
)

// direction is which way an open stream is being used; the first move
// decides it until the stream is closed.
type direction int

const (
	undecided direction = iota
	movingDown
	movingUp
)

// openStream is a core's state of a stream it has open.
type openStream struct {
	s       *Stream
	name    string // how messages name it
	dir     direction
	cursor  int              // area offset of the header before the next token
	bufs    []unsafe.Pointer // token buffers in local memory: one, two once double buffering
	pending *fetch           // the token at cursor, fetched or being fetched
	lastUp  uint32           // ticket of the newest token moved up
	last    uint32           // ticket of the newest transfer of any kind
	upChunk int              // deprecated up streams: size of the next chunks
}

// fetch is a token being copied into token buffer buf.
type fetch struct {
	buf    int
	size   int
	ticket uint32
}

// Move is the outcome of a stream call for the C side: wait until DMA
// ticket Wait is complete (0: nothing to wait for), then hand Buffer and
// Size to the kernel.
type Move struct {
	Buffer unsafe.Pointer
	Size   int
	Wait   uint32
}

// resolve finds the stream a call names; legacy numbers are this core's.
func (c *Core) resolve(call string, id int, api StreamAPI) (*Stream, string, *Error) {
	ms := &c.m.memory
	ms.streamMu.Lock()
	defer ms.streamMu.Unlock()
	if api == CurrentStreams {
		if id < 0 || id >= len(ms.streams) {
			return nil, "", c.errorf(call, "there is no stream %d (the host made %s)", id, countStreams(len(ms.streams)))
		}
		return ms.streams[id], streamName(id), nil
	}
	mine := ms.legacy[c.pid]
	name := "this core's stream " + itoa(id)
	if id < 0 || id >= len(mine) {
		return nil, "", c.errorf(call, "there is no stream %d for this core (the host made %s for it)", id, countStreams(len(mine)))
	}
	s := ms.streams[mine[id]]
	want := map[StreamAPI]streamKind{LegacyDown: downStream, LegacyUp: upStream}[api]
	if s.kind != want {
		return nil, "", c.errorf(call, "%s is %s, not %s; up and down streams cannot be mixed",
			name, article(s.kind), article(want))
	}
	return s, name, nil
}

// openStreamFor finds a stream this core has open.
func (c *Core) openStreamFor(call string, id int, api StreamAPI) (*openStream, *Error) {
	s, name, err := c.resolve(call, id, api)
	if err != nil {
		return nil, err
	}
	if o := c.streams[s.id]; o != nil {
		return o, nil
	}
	c.m.memory.streamMu.Lock()
	owner := s.owner
	c.m.memory.streamMu.Unlock()
	if owner != noOwner {
		return nil, c.errorf(call, "%s is open on core %02d, not on this core", name, owner)
	}
	return nil, c.errorf(call, "%s is not open (closed already, or never opened)", name)
}

// StreamOpen opens a stream for this core: it takes ownership, gets a token
// buffer in local memory, and starts fetching the first token unless the
// stream is for moving up. Move.Buffer is the token buffer, Move.Size the
// stream's token size.
func (c *Core) StreamOpen(call string, id int, api StreamAPI) (Move, *Error) {
	s, name, err := c.resolve(call, id, api)
	if err != nil {
		return Move{}, err
	}
	ms := &c.m.memory
	ms.streamMu.Lock()
	owner := s.owner
	if owner == noOwner {
		s.owner = c.pid
	}
	ms.streamMu.Unlock()
	switch {
	case owner == c.pid:
		return Move{}, c.errorf(call, "%s is already open on this core", name)
	case owner != noOwner:
		return Move{}, c.errorf(call, "%s is already open on core %02d; a stream is open on one core at a time", name, owner)
	}
	buf := c.Malloc(s.tokenSize)
	if buf == nil {
		c.releaseOwnership(s)
		local := ms.mem.Local(c.pid)
		return Move{}, c.errorf(call, "no room in local memory for a token buffer of %d bytes for %s (%d of %d bytes in use)",
			s.tokenSize, name, local.InUse(), local.Size())
	}
	o := &openStream{s: s, name: name, bufs: []unsafe.Pointer{buf}, upChunk: s.tokenSize}
	switch api {
	case LegacyDown:
		o.dir = movingDown
	case LegacyUp:
		o.dir = movingUp
	}
	if c.streams == nil {
		c.streams = map[int]*openStream{}
	}
	c.streams[s.id] = o
	if o.dir != movingUp {
		if size, err := c.tokenAfter(call, o); err == nil && size > 0 {
			o.pending = c.fetch(o, 0, size, false)
		}
	}
	return Move{Buffer: buf, Size: s.tokenSize}, nil
}

func (c *Core) releaseOwnership(s *Stream) {
	c.m.memory.streamMu.Lock()
	s.owner = noOwner
	c.m.memory.streamMu.Unlock()
}

// fetch starts copying the token at the cursor into token buffer buf;
// now says the core waits for it at once.
func (c *Core) fetch(o *openStream, buf, size int, now bool) *fetch {
	push := c.DMA().Push
	if now {
		push = c.DMA().PushNow
	}
	t := push(o.bufs[buf], o.s.token(o.cursor), size)
	o.last = t
	return &fetch{buf: buf, size: size, ticket: t}
}

// tokenAfter is the size of the token after the header at the cursor,
// checked against the stream's area and token size.
func (c *Core) tokenAfter(call string, o *openStream) (int, *Error) {
	size := o.s.nextSize(o.cursor)
	if size < 0 || size > o.s.tokenSize || (size > 0 && o.cursor+2*headerSize+size > o.s.areaSize) {
		return 0, c.errorf(call, "%s is corrupt: a token of %d bytes at byte %d of its area", o.name, size, o.cursor)
	}
	return size, nil
}

// StreamMoveDown hands out the token at the cursor and moves past it. With
// preload the next token is fetched into the other buffer meanwhile. Size
// 0 means the end of the stream.
func (c *Core) StreamMoveDown(call string, id int, api StreamAPI, preload bool) (Move, *Error) {
	o, err := c.openStreamFor(call, id, api)
	if err != nil {
		return Move{}, err
	}
	if o.dir == movingUp {
		return Move{}, c.errorf(call, "%s is being moved up; moving down needs it closed and opened again", o.name)
	}
	o.dir = movingDown
	size, err := c.tokenAfter(call, o)
	if err != nil || size == 0 {
		o.pending = nil
		return Move{}, err
	}
	got := o.pending
	if got == nil {
		got = c.fetch(o, len(o.bufs)-1, size, true)
	}
	o.pending = nil
	o.cursor += headerSize + size
	if preload && c.ensureSecondBuffer(o) {
		if next, err := c.tokenAfter(call, o); err == nil && next > 0 {
			o.pending = c.fetch(o, 1-got.buf, next, false)
		}
	}
	return Move{Buffer: o.bufs[got.buf], Size: got.size, Wait: got.ticket}, nil
}

// ensureSecondBuffer gets the second token buffer for double buffering;
// without room for it the stream goes on single-buffered.
func (c *Core) ensureSecondBuffer(o *openStream) bool {
	if len(o.bufs) == 2 {
		return true
	}
	buf := c.Malloc(o.s.tokenSize)
	if buf == nil {
		return false
	}
	o.bufs = append(o.bufs, buf)
	return true
}

// StreamMoveUp writes a token at the cursor and ends the chain after it:
// the headers are written at once, the data by DMA straight from data.
// Move.Wait is that transfer with wait, else the previous token's.
func (c *Core) StreamMoveUp(call string, id int, api StreamAPI, data unsafe.Pointer, n int, wait bool) (Move, *Error) {
	o, err := c.openStreamFor(call, id, api)
	if err != nil {
		return Move{}, err
	}
	s := o.s
	room := s.areaSize - o.cursor - 2*headerSize
	switch {
	case o.dir == movingDown:
		return Move{}, c.errorf(call, "%s is being moved down; moving up needs it closed and opened again", o.name)
	case data == nil:
		return Move{}, c.errorf(call, "NULL data for %s", o.name)
	case n <= 0:
		return Move{}, c.errorf(call, "token size %d for %s; a token has at least 1 byte", n, o.name)
	case n > s.tokenSize:
		return Move{}, c.errorf(call, "token of %d bytes is larger than the token size of %s (%d bytes)", n, o.name, s.tokenSize)
	case n > room:
		return Move{}, c.errorf(call, "token of %d bytes does not fit in %s: %d bytes of room left", n, o.name, max(room, 0))
	}
	o.dir = movingUp
	o.pending = nil
	s.setNext(o.cursor, n)
	s.setHeader(o.cursor+headerSize+n, n, 0)
	push := c.DMA().Push
	if wait {
		push = c.DMA().PushNow
	}
	t := push(s.token(o.cursor), data, n)
	o.cursor += headerSize + n
	previous := o.lastUp
	o.lastUp, o.last = t, t
	if wait {
		return Move{Size: n, Wait: t}, nil
	}
	return Move{Size: n, Wait: previous}, nil
}

// StreamSeek moves the cursor delta tokens, stopping at either end; a
// preloaded token is dropped.
func (c *Core) StreamSeek(call string, id int, api StreamAPI, delta int) *Error {
	o, err := c.openStreamFor(call, id, api)
	if err != nil {
		return err
	}
	if o.dir == movingUp {
		return c.errorf(call, "%s is being moved up; seeking is for moving down", o.name)
	}
	o.pending = nil
	for ; delta > 0; delta-- {
		size, err := c.tokenAfter(call, o)
		if err != nil {
			return err
		}
		if size == 0 {
			break
		}
		o.cursor += headerSize + size
	}
	for ; delta < 0 && o.cursor > 0; delta++ {
		// The host may have overwritten the area: a size that does not
		// lead back to an earlier header would walk the cursor out of it.
		prev := o.s.prevSize(o.cursor)
		if prev <= 0 || prev > o.s.tokenSize || headerSize+prev > o.cursor {
			return c.errorf(call, "%s is corrupt: a token of %d bytes before byte %d of its area", o.name, prev, o.cursor)
		}
		o.cursor -= headerSize + prev
	}
	return nil
}

// StreamClose checks a stream can be closed and returns the transfer to
// wait for before StreamRelease frees its buffers and lets others open it.
func (c *Core) StreamClose(call string, id int, api StreamAPI) (uint32, *Error) {
	o, err := c.openStreamFor(call, id, api)
	if err != nil {
		return 0, err
	}
	return o.last, nil
}

// StreamRelease finishes StreamClose once the stream's transfers are done.
func (c *Core) StreamRelease(id int, api StreamAPI) {
	s, _, err := c.resolve("", id, api)
	if err != nil || c.streams[s.id] == nil {
		return
	}
	o := c.streams[s.id]
	delete(c.streams, s.id)
	local := c.m.memory.mem.Local(c.pid)
	for _, b := range o.bufs {
		if off, ok := local.Offset(b); ok {
			local.Free(off)
		}
	}
	c.releaseOwnership(s)
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

func article(k streamKind) string {
	if k == upStream {
		return "an up stream"
	}
	return "a " + k.String()
}
