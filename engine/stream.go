package engine

import (
	"fmt"
	"math"
	"unsafe"

	"libebsp/emesh"
)

// Streams as EBSP 1.0 has them. There are two families, numbered apart:
//
//   - bsp_stream_create makes a stream any core may open by its id, the
//     number of bsp_stream_create calls before it (0, 1, ...). Its area in
//     external memory is a chain of tokens, each after a header of two C
//     ints, the size of the token before it and of the token after it:
//
//     (0, size0) token0 (size0, size1) token1 ... (sizeN, 0)
//
//     The host writes and reads tokens in place by walking that chain.
//
//   - ebsp_create_down_stream and ebsp_create_up_stream (deprecated) make a
//     stream for one core, numbered per core in order of creation, down and
//     up streams counted together. A down stream has the same chain of
//     headers; an up stream is raw: the chunks a core sends up follow each
//     other with no headers, so the host reads a flat array.
type Stream struct {
	id        int            // bsp_stream_create: its id; deprecated: its number for its core
	area      unsafe.Pointer // in external memory
	areaSize  int            // bytes of the area
	tokenSize int            // largest token (chunk): the size of a core's token buffers
	kind      streamKind
	owner     int // bsp_stream_create streams: the core that has it open, or noOwner
}

const (
	headerSize = 8 // two C ints: size before, size after
	noOwner    = -1
)

// MinTokenSize is the smallest token (chunk) size the board's host library
// accepts for bsp_stream_create and the deprecated stream calls.
const MinTokenSize = 16

// MaxStreams is the board's limit on bsp_stream_create streams, and on the
// deprecated streams of one core.
const MaxStreams = 1000

type streamKind int

const (
	anyStream  streamKind = iota // bsp_stream_create: down and up
	downStream                   // ebsp_create_down_stream
	upStream                     // ebsp_create_up_stream: raw
)

// HostText is a failure the board's host library reported with a line of
// its own on stdout (printf, no prefix); the caller prints it as it is.
type HostText string

func (t HostText) Error() string { return string(t) }

// header fields at a byte offset of a chained area.
func (s *Stream) prevSize(at int) int { return int(*(*int32)(unsafe.Add(s.area, at))) }
func (s *Stream) nextSize(at int) int { return int(*(*int32)(unsafe.Add(s.area, at+4))) }
func (s *Stream) setHeader(at, prev, next int) {
	*(*int32)(unsafe.Add(s.area, at)) = int32(prev)
	*(*int32)(unsafe.Add(s.area, at+4)) = int32(next)
}
func (s *Stream) setNext(at, next int) { *(*int32)(unsafe.Add(s.area, at+4)) = int32(next) }

// chainSize is the area of a chained stream of size data bytes in tokens of
// tokenSize: the data, a header before every token and a terminating one.
func chainSize(size, tokenSize int) int {
	tokens := (size + tokenSize - 1) / tokenSize
	return size + headerSize*(tokens+1)
}

// CreateStream is bsp_stream_create: a chained stream of size bytes in
// tokens of tokenSize, holding a copy of data or, when data is nil, empty
// (a lone terminating header). It returns the stream's area.
func (m *Machine) CreateStream(size, tokenSize int, data unsafe.Pointer) (unsafe.Pointer, error) {
	const call = "bsp_stream_create"
	if err := m.streamHostCheck(call, noCore, size); err != nil {
		return nil, err
	}
	if tokenSize < MinTokenSize {
		return nil, HostText(fmt.Sprintf("ERROR: minimum token size is %d bytes", MinTokenSize))
	}
	if m.Streams() == MaxStreams {
		return nil, HostText(fmt.Sprintf("ERROR: Reached limit of %d streams.", MaxStreams))
	}
	if data != nil {
		if bad := emesh.CheckUser(data, size, false); bad != nil {
			return nil, fmt.Errorf("%s: %s", call, bad.Describe("the initial data"))
		}
	}
	s, ok := m.newStream(chainSize(size, tokenSize), tokenSize, anyStream)
	if !ok {
		return nil, HostText("ERROR: not enough memory in extmem for ebsp_stream_create")
	}
	if data == nil {
		s.setHeader(0, 0, 0)
	} else {
		s.chain(size, data)
	}
	ms := &m.memory
	ms.streamMu.Lock()
	s.id = len(ms.streams)
	ms.streams = append(ms.streams, s)
	ms.streamMu.Unlock()
	return s.area, nil
}

// CreateDownStream is ebsp_create_down_stream: a chained stream holding a
// copy of size bytes of data, cut into chunks of chunkSize, for core pid.
// It returns the stream's number in pid's numbering (the board's call
// returns nothing).
func (m *Machine) CreateDownStream(data unsafe.Pointer, pid, size, chunkSize int) (int, error) {
	const call = "ebsp_create_down_stream"
	if err := m.streamHostCheck(call, pid, size); err != nil {
		return -1, err
	}
	if chunkSize < MinTokenSize {
		return -1, HostText(fmt.Sprintf("ERROR: minimum chunk size is %d bytes", MinTokenSize))
	}
	if data == nil && size > 0 {
		return -1, fmt.Errorf("%s: source data is NULL", call)
	}
	if bad := emesh.CheckUser(data, size, false); bad != nil {
		return -1, fmt.Errorf("%s: %s", call, bad.Describe("the source data"))
	}
	s, ok := m.newStream(chainSize(size, chunkSize), chunkSize, downStream)
	if !ok {
		return -1, HostText("ERROR: not enough memory in extmem for ebsp_send_buffered_raw")
	}
	s.chain(size, data)
	return m.addLegacy(pid, s)
}

// CreateUpStream is ebsp_create_up_stream: size raw bytes that core pid
// fills with the chunks it sends up. It returns the area; with the board's
// per-core limit reached it returns the area and the error both, as the
// board's call did (the stream is then not usable).
func (m *Machine) CreateUpStream(pid, size, chunkSize int) (unsafe.Pointer, error) {
	const call = "ebsp_create_up_stream"
	if err := m.streamHostCheck(call, pid, size); err != nil {
		return nil, err
	}
	if chunkSize < MinTokenSize {
		return nil, HostText(fmt.Sprintf("ERROR: minimum chunk size is %d bytes", MinTokenSize))
	}
	s, ok := m.newStream(size, chunkSize, upStream)
	if !ok {
		return nil, HostText("ERROR: not enough memory in extmem for ebsp_get_buffered")
	}
	_, err := m.addLegacy(pid, s)
	return s.area, err
}

func (m *Machine) addLegacy(pid int, s *Stream) (int, error) {
	ms := &m.memory
	ms.streamMu.Lock()
	defer ms.streamMu.Unlock()
	if len(ms.legacy[pid]) == MaxStreams {
		return -1, HostText("ERROR: state.combuf.n_streams >= MAX_N_STREAMS")
	}
	s.id = len(ms.legacy[pid])
	ms.legacy[pid] = append(ms.legacy[pid], s)
	return s.id, nil
}

// noCore is the pid streamHostCheck gets for a stream of no core
// (bsp_stream_create); a pid the host passes is a C int, never this.
const noCore = math.MinInt

// streamHostCheck refuses what the board would crash on or corrupt memory
// with: a stream made outside bsp_begin..bsp_end or during a run, for a
// core the chip does not have (pid noCore: no core), or of a negative size. A
// stream for a core of the chip that bsp_begin did not start is made, as
// on the board, and never used.
func (m *Machine) streamHostCheck(call string, pid, size int) error {
	m.mu.Lock()
	state := m.state
	m.mu.Unlock()
	switch {
	case state == HostRunning:
		return fmt.Errorf("%s: called during ebsp_spmd; make streams before the run", call)
	case state != HostBegun || m.memory.mem == nil:
		return fmt.Errorf("%s: called before bsp_begin", call)
	case pid != noCore && (pid < 0 || pid >= len(m.memory.legacy)):
		return fmt.Errorf("%s: pid %d out of range; the %s mesh has cores 0..%d", call, pid, m.mesh, len(m.memory.legacy)-1)
	case size < 0:
		return fmt.Errorf("%s: negative stream size %d", call, size)
	}
	return nil
}

// newStream carves an area of need bytes out of external memory.
func (m *Machine) newStream(need, tokenSize int, kind streamKind) (*Stream, bool) {
	ext := m.memory.mem.Ext()
	off, ok := ext.Alloc(need)
	if !ok {
		return nil, false
	}
	return &Stream{area: ext.At(off), areaSize: need, tokenSize: tokenSize, kind: kind, owner: noOwner}, true
}

// chain writes data into the area as the board's host library does: tokens
// of tokenSize (the last one shorter), each after its header, and a
// terminating header whose first int is the last token's size (the token
// size when there is no token at all).
func (s *Stream) chain(size int, data unsafe.Pointer) {
	at, prev, n := 0, 0, s.tokenSize
	for done := 0; done < size; done += s.tokenSize {
		n = min(s.tokenSize, size-done)
		s.setHeader(at, prev, n)
		copy(unsafe.Slice((*byte)(unsafe.Add(s.area, at+headerSize)), n), unsafe.Slice((*byte)(unsafe.Add(data, done)), n))
		at, prev = at+headerSize+n, n
	}
	s.setHeader(at, n, 0)
}

// Streams is the number of bsp_stream_create streams made since bsp_begin.
func (m *Machine) Streams() int {
	m.memory.streamMu.Lock()
	defer m.memory.streamMu.Unlock()
	return len(m.memory.streams)
}
