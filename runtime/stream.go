package runtime

import (
	"fmt"
	"unsafe"
)

// A stream is a chain of tokens in external memory, made by the host and
// moved through a core's local memory token by token. Its area has the
// layout EBSP documents, so the host can read what cores wrote in place:
//
//	header(0, size0) token0 header(size0, size1) token1 ... header(sizeN, 0)
//
// where a header is two C ints: the size of the token before it and of
// the token after it (data bytes only).
type Stream struct {
	id        int
	area      unsafe.Pointer // in external memory
	areaSize  int            // bytes of the area, headers included
	tokenSize int            // largest token; the size of a core's token buffers
	kind      streamKind
	forCore   int // deprecated streams: the only core that uses them
	owner     int // core that has it open, or noOwner
}

const (
	headerSize = 8 // two C ints
	noOwner    = -1
)

// MinTokenSize is the smallest token size bsp_stream_create accepts (as
// in EBSP).
const MinTokenSize = 16

type streamKind int

const (
	anyStream  streamKind = iota // bsp_stream_create: down and up
	downStream                   // ebsp_create_down_stream
	upStream                     // ebsp_create_up_stream
)

func (k streamKind) String() string {
	return [...]string{"stream", "down stream", "up stream"}[k]
}

// ID is the stream's number, its place in the order of creation.
func (s *Stream) ID() int { return s.id }

// Area is the stream's chain of headers and tokens in external memory.
func (s *Stream) Area() unsafe.Pointer { return s.area }

// header fields at a byte offset of the area.
func (s *Stream) prevSize(at int) int { return int(*(*int32)(unsafe.Add(s.area, at))) }
func (s *Stream) nextSize(at int) int { return int(*(*int32)(unsafe.Add(s.area, at+4))) }
func (s *Stream) setHeader(at, prev, next int) {
	*(*int32)(unsafe.Add(s.area, at)) = int32(prev)
	*(*int32)(unsafe.Add(s.area, at+4)) = int32(next)
}
func (s *Stream) setNext(at, next int) { *(*int32)(unsafe.Add(s.area, at+4)) = int32(next) }

// token is the address of the data of the token after the header at at.
func (s *Stream) token(at int) unsafe.Pointer { return unsafe.Add(s.area, at+headerSize) }

// areaSize is what a stream of size data bytes in tokens of tokenSize
// needs: the data plus a header before every token and after the last.
func areaSize(size, tokenSize int) int {
	tokens := (size + tokenSize - 1) / tokenSize
	return size + headerSize*(tokens+1)
}

// CreateStream is bsp_stream_create. data (size bytes) is copied in, or
// the stream starts empty when data is nil; it returns the stream's area.
func (m *Machine) CreateStream(size, tokenSize int, data unsafe.Pointer) (unsafe.Pointer, error) {
	const call = "bsp_stream_create"
	if tokenSize < MinTokenSize {
		return nil, fmt.Errorf("%s: token size %d is below the minimum of %d bytes", call, tokenSize, MinTokenSize)
	}
	s, err := m.newStream(call, size, tokenSize, data, anyStream, -1)
	if err != nil {
		return nil, err
	}
	return s.area, nil
}

// CreateDownStream is ebsp_create_down_stream: a stream of data for core
// pid only. It returns the stream's number in pid's own numbering.
func (m *Machine) CreateDownStream(data unsafe.Pointer, pid, size, chunkSize int) (int, error) {
	const call = "ebsp_create_down_stream"
	if data == nil && size > 0 {
		return -1, fmt.Errorf("%s: source data is NULL", call)
	}
	s, err := m.newStream(call, size, chunkSize, data, downStream, pid)
	if err != nil {
		return -1, err
	}
	return m.addLegacy(pid, s), nil
}

// CreateUpStream is ebsp_create_up_stream: room for up to size bytes that
// core pid sends up in chunks of at most chunkSize. It returns the area.
func (m *Machine) CreateUpStream(pid, size, chunkSize int) (unsafe.Pointer, error) {
	s, err := m.newStream("ebsp_create_up_stream", size, chunkSize, nil, upStream, pid)
	if err != nil {
		return nil, err
	}
	m.addLegacy(pid, s)
	return s.area, nil
}

func (m *Machine) addLegacy(pid int, s *Stream) int {
	m.memory.streamMu.Lock()
	defer m.memory.streamMu.Unlock()
	m.memory.legacy[pid] = append(m.memory.legacy[pid], s.id)
	return len(m.memory.legacy[pid]) - 1
}

// newStream checks the host may make a stream now, carves its area out of
// external memory, lays out the chain and registers it.
func (m *Machine) newStream(call string, size, tokenSize int, data unsafe.Pointer, kind streamKind, pid int) (*Stream, error) {
	m.mu.Lock()
	state, ncores := m.state, len(m.cores)
	m.mu.Unlock()
	switch {
	case state == HostRunning:
		return nil, fmt.Errorf("%s: called during ebsp_spmd; make streams before the run", call)
	case state != HostBegun || m.memory.mem == nil:
		return nil, fmt.Errorf("%s: called before bsp_begin", call)
	case kind != anyStream && (pid < 0 || pid >= ncores):
		return nil, fmt.Errorf("%s: pid %d out of range; bsp_begin started cores 0..%d", call, pid, ncores-1)
	case size < 0:
		return nil, fmt.Errorf("%s: negative stream size %d", call, size)
	case tokenSize <= 0:
		return nil, fmt.Errorf("%s: token size %d must be positive", call, tokenSize)
	}
	ext := m.memory.mem.Ext()
	need := areaSize(size, tokenSize)
	off, ok := ext.Alloc(need)
	if !ok {
		return nil, fmt.Errorf("%s: no room for %d bytes in external memory (%#x bytes, %d in use; set %s to enlarge it)",
			call, need, ext.Size(), ext.InUse(), "EBSP_EXT_MEM")
	}
	s := &Stream{area: ext.At(off), areaSize: need, tokenSize: tokenSize, kind: kind, forCore: pid, owner: noOwner}
	s.layOut(size, data)
	m.memory.streamMu.Lock()
	s.id = len(m.memory.streams)
	m.memory.streams = append(m.memory.streams, s)
	m.memory.streamMu.Unlock()
	return s, nil
}

// layOut writes the chain of headers around data cut into tokens, or an
// empty chain when data is nil.
func (s *Stream) layOut(size int, data unsafe.Pointer) {
	if data == nil {
		s.setHeader(0, 0, 0)
		return
	}
	at, prev := 0, 0
	for done := 0; done < size; done += s.tokenSize {
		n := min(s.tokenSize, size-done)
		s.setHeader(at, prev, n)
		copy(unsafe.Slice((*byte)(s.token(at)), n), unsafe.Slice((*byte)(unsafe.Add(data, done)), n))
		at, prev = at+headerSize+n, n
	}
	s.setHeader(at, prev, 0)
}

// Streams is the number of streams made since bsp_begin.
func (m *Machine) Streams() int {
	m.memory.streamMu.Lock()
	defer m.memory.streamMu.Unlock()
	return len(m.memory.streams)
}
