package engine

// Fuzz targets for the stream engine (bsp_stream_* and the deprecated
// ebsp_*_stream calls), driven through the same Core methods capi calls,
// against a model of the board's library: the stream's area as bytes, the
// cursor, and the two token buffers as copies.
// Plain `go test ./engine/` runs only the seeds (well under a second). To
// fuzz for longer, one target at a time:
//
//	go test ./engine/ -run '^$' -fuzz '^FuzzStreamCurrent$' -fuzztime 10m
//	go test ./engine/ -run '^$' -fuzz '^FuzzStreamLegacy$' -fuzztime 10m
//	go test ./engine/ -run '^$' -fuzz '^FuzzStreamCorrupt$' -fuzztime 10m
//
// A failing input is saved under engine/testdata/fuzz/<target>/ and rerun
// by every plain `go test` from then on; commit it with the fix. The
// allocator under the streams has its own target, emesh.FuzzArena.

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"testing"
	"unsafe"

	"libebsp/emesh"
)

// fuzzMemory is small so that token buffers run out of local memory and
// streams out of external memory within a few operations.
var fuzzMemory = emesh.MemoryConfig{LocalSize: 0x2000, ExtSize: 1 << 16}

// guardSize is the external memory block allocated before the stream, so
// the stream's area has foreign bytes on both sides.
const guardSize = 64

// fuzzMachine is a one-core machine after bsp_begin with fuzzMemory; its
// external memory is filled with a pattern the streams must not touch.
func fuzzMachine(t *testing.T, dmaSync bool) *Machine {
	m := NewMachine(emesh.Mesh{Rows: 1, Cols: 1})
	cfg := fuzzMemory
	cfg.DMASync = dmaSync
	m.SetMemoryConfig(cfg)
	m.kernel = Kernel{Name: "fuzz", Func: unsafe.Pointer(m)}
	m.state = HostInitialized
	if _, err := m.Begin(1); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.End() })
	ext := m.Memory().Ext()
	for i, b := 0, bytesAt(ext.Base(), ext.Size()); i < len(b); i++ {
		b[i] = byte(0xa5 ^ i*7)
	}
	if _, ok := ext.Alloc(guardSize); !ok {
		t.Fatal("no room for the guard block")
	}
	return m
}

// fuzzInput hands out the fuzzer's bytes as operation codes and arguments;
// past the end it gives zeros.
type fuzzInput struct{ b []byte }

func (in *fuzzInput) more() bool { return len(in.b) > 0 }

func (in *fuzzInput) next() int {
	if len(in.b) == 0 {
		return 0
	}
	v := in.b[0]
	in.b = in.b[1:]
	return int(v)
}

func (in *fuzzInput) u16() int { return in.next() | in.next()<<8 }

// delta is a seek distance: mostly small, sometimes the extremes C allows.
func (in *fuzzInput) delta() int {
	switch in.next() % 8 {
	case 0:
		return math.MinInt32
	case 1:
		return math.MaxInt32
	case 2:
		return int(int32(uint32(in.u16()) | uint32(in.u16())<<16))
	}
	return int(int8(in.next()))
}

// fuzzData is n bytes of stream data derived from seed.
func fuzzData(n, seed int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(seed + i*31 + i>>8)
	}
	return b
}

// boardChain is the area the board's bsp_stream_create and
// ebsp_create_down_stream lay out for data (nil: an empty stream).
func boardChain(data []byte, withData bool, tokenSize int) []byte {
	var a []byte
	put := func(prev, next int) {
		a = binary.LittleEndian.AppendUint32(a, uint32(int32(prev)))
		a = binary.LittleEndian.AppendUint32(a, uint32(int32(next)))
	}
	if !withData {
		put(0, 0)
		return a
	}
	prev, n := 0, tokenSize
	for len(data) > 0 {
		n = min(tokenSize, len(data))
		put(prev, n)
		a, data, prev = append(a, data[:n]...), data[n:], n
	}
	put(n, 0) // the token size when there is no token

	return a
}

// tokenCopy is the model of a token buffer: the header the core copied
// and the bytes after it the kernel may read.
type tokenCopy struct {
	prev, size int
	data       []byte
}

// streamModel is what a kernel expects of one stream.
type streamModel struct {
	id        int
	kind      streamKind
	tokenSize int
	area      []byte // the model's copy; real is the stream's memory
	real      []byte
	base      unsafe.Pointer // where real is

	open      bool
	cursor    int
	cur, next *tokenCopy
	handed    []byte         // the bytes handed out last, as handed out
	handedP   unsafe.Pointer // where
}

func newStreamModel(id int, kind streamKind, tokenSize int, base unsafe.Pointer, size int) *streamModel {
	real := unsafe.Slice((*byte)(base), size)
	return &streamModel{id: id, kind: kind, tokenSize: tokenSize, real: real, base: base, area: append([]byte(nil), real...)}
}

func (s *streamModel) header(at int) (prev, next int) {
	return int(int32(binary.LittleEndian.Uint32(s.area[at:]))), int(int32(binary.LittleEndian.Uint32(s.area[at+4:])))
}

func (s *streamModel) setInt(at, v int) { binary.LittleEndian.PutUint32(s.area[at:], uint32(int32(v))) }

// bufSize is the local memory a token buffer takes.
func (s *streamModel) bufSize() int {
	h := headerSize
	if s.kind == upStream {
		h = upHeaderSize
	}
	return (s.tokenSize + h + emesh.Align - 1) &^ (emesh.Align - 1)
}

func (s *streamModel) buffers() int {
	n := 0
	if s.cur != nil {
		n++
	}
	if s.next != nil {
		n++
	}
	return n
}

// fuzzKernel is a core running fuzzed stream calls and checking each
// result against the models.
type fuzzKernel struct {
	t       *testing.T
	c       kcore
	m       *Machine
	in      *fuzzInput
	out     *printed
	extSnap []byte // external memory as it must stay outside the streams
	streams []*streamModel
	written byte // varies the bytes moved up
}

func (k *fuzzKernel) local() *emesh.Arena { return k.m.Memory().Local(k.c.Pid()) }

// call runs a stream call as the C side does.
func (k *fuzzKernel) call(f func() StreamResult) StreamResult { return await(k.c, f) }

// said checks the lines the last call printed: want are exact lines, or
// prefixes when they end in "...".
func (k *fuzzKernel) said(what string, want ...string) {
	k.t.Helper()
	got := k.out.take(k.c.Pid())
	ok := len(got) == len(want)
	for i := 0; ok && i < len(got); i++ {
		if p, cut := strings.CutSuffix(want[i], "..."); cut {
			ok = strings.HasPrefix(got[i], p)
		} else {
			ok = got[i] == want[i]
		}
	}
	if !ok {
		k.t.Errorf("%s printed %q; want %q", what, got, want)
	}
}

// free is the local memory not taken by the models' token buffers.
func (k *fuzzKernel) free() int {
	used := 0
	for _, s := range k.streams {
		used += s.buffers() * s.bufSize()
	}
	return fuzzMemory.LocalSize - used
}

// checkMemory checks external memory outside the stream areas is as it
// was, the last token handed out is intact, and local memory holds exactly
// the modelled token buffers.
func (k *fuzzKernel) checkMemory() {
	k.t.Helper()
	ext := bytesAt(k.m.Memory().Ext().Base(), len(k.extSnap))
	at := 0
	for _, s := range k.streams {
		off := int(uintptr(s.base) - uintptr(unsafe.Pointer(&ext[0])))
		if !bytes.Equal(ext[at:off], k.extSnap[at:off]) {
			k.t.Errorf("external memory outside the streams changed (bytes %#x..%#x)", at, off)
		}
		at = off + len(s.real)
	}
	if !bytes.Equal(ext[at:], k.extSnap[at:]) {
		k.t.Errorf("external memory after the streams changed (from byte %#x)", at)
	}
	for _, s := range k.streams {
		if s.handedP != nil && !bytes.Equal(bytesAt(s.handedP, len(s.handed)), s.handed) {
			k.t.Errorf("stream %d: the token handed out last changed before the next call", s.id)
		}
	}
	if used := k.local().InUse(); used != fuzzMemory.LocalSize-k.free() {
		k.t.Errorf("local memory in use: %d bytes; the token buffers take %d", used, fuzzMemory.LocalSize-k.free())
	}
}

// checkArea compares a stream's memory with the model once its transfers
// are done.
func (k *fuzzKernel) checkArea(s *streamModel) {
	k.t.Helper()
	if !bytes.Equal(s.real, s.area) {
		i := 0
		for i < len(s.area) && s.real[i] == s.area[i] {
			i++
		}
		k.t.Errorf("stream %d: area differs from byte %d: %x; want %x", s.id, i, s.real[i:min(i+16, len(s.real))], s.area[i:min(i+16, len(s.area))])
	}
}

// read is the model of reading the token at the cursor into a buffer.
func (k *fuzzKernel) read(s *streamModel, lines *[]string) *tokenCopy {
	prev, size := s.header(s.cursor)
	tc := &tokenCopy{prev: prev}
	if size == 0 {
		return tc
	}
	if size < 0 || s.cursor+2*headerSize+size > len(s.area) {
		*lines = append(*lines, "BSP ERROR: ...")
		return tc
	}
	from := s.cursor + headerSize
	s.cursor += headerSize + size
	if size > s.tokenSize {
		*lines = append(*lines, fmt.Sprintf(errTokenTooLong, size, s.tokenSize))
		size = s.tokenSize
	}
	tc.size, tc.data = size, append([]byte(nil), s.area[from:from+size]...)
	return tc
}

// moveDown is the model of a move down of a chained stream; it returns
// the size, the token handed out and the lines printed.
func (k *fuzzKernel) moveDown(s *streamModel, preload bool) (int, *tokenCopy, []string) {
	var lines []string
	if s.next == nil {
		s.cur = k.read(s, &lines)
	} else {
		s.cur, s.next = s.next, s.cur
	}
	if s.cur.size == 0 {
		return 0, nil, lines
	}
	if preload {
		if s.next == nil && k.free() < s.bufSize() {
			return 0, s.cur, append(lines, errStreamMemory)
		}
		s.next = k.read(s, &lines)
	} else {
		s.next = nil
	}
	return s.cur.size, s.cur, lines
}

// checkHanded checks a move down's outcome against the model's.
func (k *fuzzKernel) checkHanded(call string, s *streamModel, mv StreamResult, size int, tc *tokenCopy) {
	k.t.Helper()
	s.handed, s.handedP = nil, nil
	switch {
	case mv.Size != size:
		k.t.Errorf("%s returned %d; want %d", call, mv.Size, size)
	case tc == nil && mv.Buffer != nil:
		k.t.Errorf("%s at the end handed out %p; want NULL", call, mv.Buffer)
	case tc != nil && (!mv.SetBuffer || !k.local().Contains(mv.Buffer, tc.size)):
		k.t.Errorf("%s handed out %p (set %v), not a token buffer", call, mv.Buffer, mv.SetBuffer)
	case tc != nil && !bytes.Equal(bytesAt(mv.Buffer, tc.size), tc.data):
		k.t.Errorf("%s handed out %x; want %x", call, bytesAt(mv.Buffer, tc.size), tc.data)
	case tc != nil:
		s.handed, s.handedP = append([]byte(nil), tc.data...), mv.Buffer
	}
}

// walk is the model of a cursor walk; it returns how it ended.
func (k *fuzzKernel) walk(s *streamModel, delta int, legacy bool) walkResult {
	if !legacy && delta == math.MinInt32 {
		s.cursor = 0
		return walked
	}
	for ; delta > 0; delta-- {
		_, size := s.header(s.cursor)
		if size == 0 {
			return walkedToEnd
		}
		if size < 0 || s.cursor+2*headerSize+size > len(s.area) {
			return walkedCorrupt
		}
		s.cursor += headerSize + size
	}
	for ; delta < 0; delta++ {
		prev, _ := s.header(s.cursor)
		if prev == 0 {
			return walkedToEnd
		}
		if prev < 0 || headerSize+prev > s.cursor {
			return walkedCorrupt
		}
		s.cursor -= headerSize + prev
	}
	return walked
}

// fill writes n varying bytes to p and returns a copy.
func (k *fuzzKernel) fill(p unsafe.Pointer, n int) []byte {
	b := bytesAt(p, n)
	for i := range b {
		k.written++
		b[i] = k.written
	}
	return append([]byte(nil), b...)
}

// FuzzStreamCurrent makes one stream with bsp_stream_create and runs a
// fuzzed sequence of bsp_stream_* calls on it, over one or more runs.
func FuzzStreamCurrent(f *testing.F) {
	// ops: 0 open, 1 move down, 2 move up, 3 seek, 4 close, 5 next run,
	// 6 open a stream that does not exist, 7 move up NULL.
	f.Add(uint16(100), uint16(16), true, false, []byte{0, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 4})
	f.Add(uint16(1000), uint16(64), true, false, []byte{0, 1, 1, 3, 0, 3, 1, 1, 1, 3, 7, 1, 0, 3, 3, 200, 1, 1, 4, 0, 2, 2, 0, 2, 1, 5, 2, 0, 9, 7, 4, 0, 1, 0})
	f.Add(uint16(300), uint16(32), false, true, []byte{0, 2, 1, 20, 1, 2, 0, 1, 2, 0, 0, 2, 1, 5, 1, 2, 2, 0, 1, 4, 2, 3, 0, 3, 1, 4, 0, 1, 0, 1, 0, 1, 0, 1, 0})
	f.Add(uint16(5000), uint16(3000), true, false, []byte{0, 1, 1, 1, 1, 3, 0, 1, 1, 5, 0, 1, 0, 4, 4, 6, 0})
	f.Add(uint16(200), uint16(9000), true, false, []byte{0, 1, 0, 4, 6, 7})
	f.Add(uint16(64), uint16(15), true, false, []byte{0})
	f.Add(uint16(60000), uint16(1024), true, false, []byte{0})
	f.Add(uint16(120), uint16(40), true, false, []byte{0, 1, 1, 2, 4, 7, 3, 3, 1, 1, 1, 2, 6, 2, 2, 2, 3, 0, 9, 1, 0, 1, 1, 1, 1, 2, 7, 0, 1, 1, 3, 1, 255, 1, 1, 1, 0})
	f.Fuzz(func(t *testing.T, size, tokenSize uint16, withData, dmaSync bool, ops []byte) {
		m := fuzzMachine(t, dmaSync)
		out := recordLines(m)
		data := fuzzData(int(size), len(ops))
		src := unsafe.Pointer(unsafe.SliceData(data))
		if !withData {
			src = nil
		}
		areaP, err := m.CreateStream(int(size), int(tokenSize), src)
		need := chainSize(int(size), max(int(tokenSize), 1))
		fits := (need+emesh.Align-1)&^(emesh.Align-1) <= fuzzMemory.ExtSize-guardSize
		switch {
		case tokenSize < MinTokenSize:
			if err != HostText("ERROR: minimum token size is 16 bytes") {
				t.Fatalf("CreateStream(%d, %d): %v", size, tokenSize, err)
			}
			return
		case !fits:
			if err != HostText("ERROR: not enough memory in extmem for ebsp_stream_create") {
				t.Fatalf("CreateStream(%d, %d): %v", size, tokenSize, err)
			}
			return
		case err != nil:
			t.Fatalf("CreateStream(%d, %d): %v", size, tokenSize, err)
		}
		s := newStreamModel(0, anyStream, int(tokenSize), areaP, need)
		if want := boardChain(data, withData, int(tokenSize)); !bytes.Equal(s.area[:len(want)], want) {
			t.Fatalf("the area starts %x; want %x", s.area[:min(len(want), 64)], want[:min(len(want), 64)])
		}
		k := &fuzzKernel{t: t, m: m, in: &fuzzInput{ops}, out: out, streams: []*streamModel{s}}
		k.extSnap = append([]byte(nil), bytesAt(m.Memory().Ext().Base(), m.Memory().Ext().Size())...)
		for first := true; first || k.in.more(); first = false {
			runAgain(t, m, func(c kcore) {
				k.c = c
				k.runCurrent(s)
			})
			s.open, s.cur, s.next, s.handed, s.handedP = false, nil, nil, nil, nil
			k.checkArea(s)
			if t.Failed() {
				return
			}
		}
	})
}

// runCurrent runs operations until the input asks for the next run.
func (k *fuzzKernel) runCurrent(s *streamModel) {
	// Source buffers of moves up: two, as a kernel that does not wait for
	// each token must alternate them; like kernel globals they are host
	// memory, with room for tokens above the token size.
	srcs := [2][]byte{make([]byte, s.tokenSize+300), make([]byte, s.tokenSize+300)}
	nextSrc := 0
	var srcTicket [2]uint32 // the transfer last reading each
	notOpen := func(call string) string { return "BSP ERROR: " + call + ": stream 0 is not open on this core..." }
	for k.in.more() && !k.t.Failed() {
		k.checkMemory()
		switch k.in.next() % 8 {
		case 0:
			mv := k.c.StreamOpen(s.id)
			if s.open {
				k.said("bsp_stream_open", "BSP ERROR: stream with id 0 is in use")
				if mv.Size != 0 {
					k.t.Errorf("open of an open stream returned %d", mv.Size)
				}
				continue
			}
			k.said("bsp_stream_open")
			if mv.Size != s.tokenSize {
				k.t.Errorf("open returned %d; want %d", mv.Size, s.tokenSize)
			}
			s.open, s.cursor = true, 0
		case 1:
			preload := k.in.next()%2 == 1
			mv := k.call(func() StreamResult { return k.c.StreamMoveDown(s.id, preload) })
			if !s.open {
				k.said("bsp_stream_move_down", notOpen("bsp_stream_move_down"))
				continue
			}
			if s.cur == nil && k.free() < s.bufSize() {
				k.said("bsp_stream_move_down", errStreamMemory)
				continue
			}
			size, tc, lines := k.moveDown(s, preload)
			k.said("bsp_stream_move_down", lines...)
			k.checkHanded("bsp_stream_move_down", s, mv, size, tc)
		case 2:
			arg := k.in.next()
			wait := arg&1 == 1
			n := []int{s.tokenSize, 1 + k.in.u16()%s.tokenSize, s.tokenSize + 1 + k.in.next(), -k.in.next()}[arg>>1%4]
			p := unsafe.Pointer(&srcs[nextSrc][0])
			if t := srcTicket[nextSrc]; t != 0 {
				// Every call waits for the stream's previous transfer, so
				// the one before the last move up is done. (Wait also
				// tells the race detector, which does not see the engine's
				// atomics in mmap'ed memory.)
				if !k.c.DMA().Done(t) {
					k.t.Errorf("a move up two calls ago is still reading its data")
				}
				k.c.DMA().Wait(t)
			}
			payload := k.fill(p, max(n, 0))
			mv := k.call(func() StreamResult { return k.c.StreamMoveUp(s.id, p, n, wait) })
			if o := k.c.streams.open[s.id]; o != nil && mv.Size > 0 {
				srcTicket[nextSrc] = o.last
			}
			nextSrc = 1 - nextSrc
			k.moveUp(s, n, payload, mv)
		case 3:
			delta := k.in.delta()
			k.call(func() StreamResult { return k.c.StreamSeek(s.id, delta) })
			if !s.open {
				k.said("bsp_stream_seek", notOpen("bsp_stream_seek"))
				continue
			}
			if k.walk(s, delta, false) == walkedCorrupt {
				k.said("bsp_stream_seek", "BSP ERROR: bsp_stream_seek: stream 0: the header at byte ...")
			} else {
				k.said("bsp_stream_seek")
			}
			s.next = nil
		case 4:
			k.call(func() StreamResult { return k.c.StreamClose(s.id) })
			if !s.open {
				k.said("bsp_stream_close", notOpen("bsp_stream_close"))
				continue
			}
			k.said("bsp_stream_close")
			s.open, s.cur, s.next, s.handed, s.handedP = false, nil, nil, nil, nil
			k.checkArea(s)
		case 5:
			return
		case 6:
			id := []int{1, -1, math.MaxInt32, math.MinInt32}[k.in.next()%4]
			if mv := k.c.StreamOpen(id); mv.Size != 0 {
				k.t.Errorf("open of stream %d returned %d", id, mv.Size)
			}
			if id < 0 {
				k.said("bsp_stream_open", fmt.Sprintf("BSP ERROR: bsp_stream_open: there is no stream %d (the host made only stream 0) (superstep 0)", id))
			} else {
				k.said("bsp_stream_open", errNoSuchStream)
			}
		case 7:
			mv := k.call(func() StreamResult { return k.c.StreamMoveUp(s.id, nil, 1, true) })
			switch {
			case !s.open:
				k.said("bsp_stream_move_up", notOpen("bsp_stream_move_up"))
			case uint32(len(s.area)-s.cursor) < 24:
				k.said("bsp_stream_move_up", fmt.Sprintf(errStreamFull, s.id, len(s.area)-s.cursor, 24))
			default:
				k.said("bsp_stream_move_up", "BSP ERROR: bsp_stream_move_up: NULL data for stream 0 (superstep 0)")
			}
			if mv.Size != 0 {
				k.t.Errorf("move up of NULL returned %d", mv.Size)
			}
		}
	}
	k.checkMemory()
}

// moveUp checks a move up of n bytes of payload against the model.
func (k *fuzzKernel) moveUp(s *streamModel, n int, payload []byte, mv StreamResult) {
	k.t.Helper()
	const call = "bsp_stream_move_up"
	size, want := roundToken(n), 0
	var lines []string
	switch {
	case !s.open:
		lines = []string{"BSP ERROR: " + call + ": stream 0 is not open on this core..."}
	case size < 0:
		lines = []string{fmt.Sprintf("BSP ERROR: %s: token size %d for stream 0 (superstep 0)", call, n)}
	default:
		if size > s.tokenSize {
			lines = append(lines, fmt.Sprintf(warnTokenTooLong, size, s.id, s.tokenSize))
		}
		if left := len(s.area) - s.cursor; left < size+2*headerSize {
			lines = append(lines, fmt.Sprintf(errStreamFull, s.id, left, size+2*headerSize))
			break
		}
		s.setInt(s.cursor+4, size)
		s.setInt(s.cursor+headerSize+size, size)
		s.setInt(s.cursor+headerSize+size+4, 0)
		copy(s.area[s.cursor+headerSize:], append(payload, make([]byte, size-max(n, 0))...))
		s.cursor += headerSize + size
		want = size
	}
	k.said(call, lines...)
	if mv.Size != want {
		k.t.Errorf("%s of %d bytes returned %d; want %d", call, n, mv.Size, want)
	}
}

// FuzzStreamLegacy makes a down stream and an up stream for core 0 with
// the deprecated host calls and runs a fuzzed sequence of the deprecated
// core calls on them, with misuse mixing the two.
func FuzzStreamLegacy(f *testing.F) {
	// ops: 0 open down, 1 move chunk down, 2 move down cursor, 3 reset
	// down cursor, 4 close down, 5 open up, 6 set up chunk size, 7 move
	// chunk up, 8 close up, 9 mixed-up calls, 10 next run.
	f.Add(uint16(100), uint16(16), uint16(200), uint16(40), false, []byte{0, 1, 1, 1, 0, 1, 1, 2, 255, 1, 0, 3, 1, 1, 4, 5, 7, 1, 7, 1, 6, 5, 7, 0, 7, 1, 8})
	f.Add(uint16(1000), uint16(17), uint16(100), uint16(33), true, []byte{5, 0, 1, 1, 7, 1, 6, 200, 7, 0, 7, 1, 7, 1, 7, 1, 7, 1, 7, 1, 9, 0, 9, 1, 9, 2, 9, 3, 8, 10, 0, 1, 1, 10, 5, 7, 1})
	f.Add(uint16(40), uint16(4000), uint16(4000), uint16(4000), false, []byte{0, 1, 1, 5, 7, 1, 7, 1, 4, 5, 7, 1, 7, 1, 8, 4, 8})
	f.Add(uint16(3), uint16(16), uint16(0), uint16(16), false, []byte{0, 1, 0, 1, 0, 1, 0, 1, 0, 2, 254, 1, 0, 5, 7, 0, 6, 0, 6, 2})
	f.Add(uint16(500), uint16(50), uint16(100), uint16(30), false, []byte{0, 1, 1, 1, 1, 2, 3, 1, 0, 2, 2, 1, 0, 2, 1, 2, 1, 1, 1, 1, 1, 1, 1, 2, 250, 3, 1, 1, 4, 4, 0, 4, 1, 1, 5, 5, 6, 1, 7, 1, 7, 0, 7, 1, 7, 1, 8, 8, 10, 1, 3, 0, 4})
	f.Fuzz(func(t *testing.T, downSize, downChunk, upSize, upChunk uint16, dmaSync bool, ops []byte) {
		m := fuzzMachine(t, dmaSync)
		out := recordLines(m)
		data := fuzzData(int(downSize), len(ops))
		free := fuzzMemory.ExtSize - guardSize
		rounded := func(n int) int { return (max(n, 1) + emesh.Align - 1) &^ (emesh.Align - 1) }
		downNeed := chainSize(int(downSize), max(int(downChunk), 1))
		n, err := m.CreateDownStream(unsafe.Pointer(unsafe.SliceData(data)), 0, int(downSize), int(downChunk))
		switch {
		case downChunk < MinTokenSize:
			if err != HostText("ERROR: minimum chunk size is 16 bytes") {
				t.Fatalf("CreateDownStream(%d, %d): %v", downSize, downChunk, err)
			}
			return
		case rounded(downNeed) > free:
			if err != HostText("ERROR: not enough memory in extmem for ebsp_send_buffered_raw") {
				t.Fatalf("CreateDownStream(%d, %d): %v", downSize, downChunk, err)
			}
			return
		case err != nil || n != 0:
			t.Fatalf("CreateDownStream(%d, %d): %d, %v", downSize, downChunk, n, err)
		}
		area, err := m.CreateUpStream(0, int(upSize), int(upChunk))
		switch {
		case upChunk < MinTokenSize:
			if err != HostText("ERROR: minimum chunk size is 16 bytes") {
				t.Fatalf("CreateUpStream(%d, %d): %v", upSize, upChunk, err)
			}
			return
		case rounded(int(upSize)) > free-rounded(downNeed):
			if err != HostText("ERROR: not enough memory in extmem for ebsp_get_buffered") {
				t.Fatalf("CreateUpStream(%d, %d): %v", upSize, upChunk, err)
			}
			return
		case err != nil:
			t.Fatalf("CreateUpStream(%d, %d): %v", upSize, upChunk, err)
		}
		down := newStreamModel(0, downStream, int(downChunk), m.memory.legacy[0][0].area, downNeed)
		if want := boardChain(data, true, int(downChunk)); !bytes.Equal(down.area, want) {
			t.Fatalf("the down stream's area is %x; want %x", down.area[:min(64, len(down.area))], want[:min(64, len(want))])
		}
		up := newStreamModel(1, upStream, int(upChunk), area, int(upSize))
		k := &fuzzKernel{t: t, m: m, in: &fuzzInput{ops}, out: out, streams: []*streamModel{down, up}}
		k.extSnap = append([]byte(nil), bytesAt(m.Memory().Ext().Base(), m.Memory().Ext().Size())...)
		for first := true; first || k.in.more(); first = false {
			runAgain(t, m, func(c kcore) {
				k.c = c
				k.runLegacy(down, up)
			})
			for _, s := range k.streams {
				s.open, s.cur, s.next, s.handed, s.handedP, s.cursor = false, nil, nil, nil, nil, 0
				k.checkArea(s)
			}
			if t.Failed() {
				return
			}
		}
	})
}

// upChunk is the model of an up stream's chunk buffer: the size before the
// chunk and the chunk's bytes as the kernel wrote them.
type upChunk struct {
	p    unsafe.Pointer // the address handed out
	size int
	data []byte
}

// runLegacy runs operations until the input asks for the next run.
func (k *fuzzKernel) runLegacy(down, up *streamModel) {
	var chunks [2]*upChunk // the up stream's current and spare chunk buffers
	hand := func(p unsafe.Pointer) {
		chunks[0] = &upChunk{p: p, size: up.tokenSize, data: k.fill(p, up.tokenSize)}
	}
	syncUp := func() { // the model's buffers follow chunks
		up.cur, up.next = nil, nil
		if chunks[0] != nil {
			up.cur = &tokenCopy{}
		}
		if chunks[1] != nil {
			up.next = &tokenCopy{}
		}
	}
	for k.in.more() && !k.t.Failed() {
		k.checkMemory()
		switch k.in.next() % 11 {
		case 0:
			mv := k.c.OpenDownStream(0)
			switch {
			case down.cur != nil || down.next != nil:
				k.said("ebsp_open_down_stream", errOpenOpened)
				mv.Size = -mv.Size
			case k.free() < down.bufSize():
				k.said("ebsp_open_down_stream", errStreamMemory)
				mv.Size = -mv.Size
			default:
				var lines []string
				down.cursor = 0
				down.next = k.read(down, &lines)
				k.said("ebsp_open_down_stream", lines...)
				if !mv.SetBuffer || !k.local().Contains(mv.Buffer, down.tokenSize) {
					k.t.Errorf("ebsp_open_down_stream handed out %p", mv.Buffer)
				}
				mv.Size -= down.tokenSize
			}
			if mv.Size != 0 {
				k.t.Errorf("ebsp_open_down_stream returned %d too many", mv.Size)
			}
		case 1:
			prealloc := k.in.next()%2 == 1
			mv := k.call(func() StreamResult { return k.c.MoveChunkDown(0, prealloc) })
			if down.cur == nil && down.next == nil {
				k.said("ebsp_move_chunk_down", "BSP ERROR: ebsp_move_chunk_down: this core's stream 0 is not open (superstep 0)")
				continue
			}
			size, tc, lines := k.moveDown(down, prealloc)
			k.said("ebsp_move_chunk_down", lines...)
			k.checkHanded("ebsp_move_chunk_down", down, mv, size, tc)
		case 2:
			delta := k.in.delta()
			k.c.MoveDownCursor(0, delta)
			switch k.walk(down, delta, true) {
			case walkedToEnd:
				k.said("ebsp_move_down_cursor", errJumpOut)
			case walkedCorrupt:
				k.said("ebsp_move_down_cursor", "BSP ERROR: ebsp_move_down_cursor: this core's stream 0: the header at byte ...")
			default:
				k.said("ebsp_move_down_cursor")
			}
		case 3:
			k.c.ResetDownCursor(0)
			k.said("ebsp_reset_down_cursor")
			down.cursor = 0
		case 4:
			k.call(func() StreamResult { return k.c.CloseLegacy(0, false) })
			if down.cur == nil {
				k.said("ebsp_close_down_stream", errCloseClosed)
				continue
			}
			k.said("ebsp_close_down_stream")
			down.cur, down.next, down.handed, down.handedP = nil, nil, nil, nil
		case 5:
			mv := k.c.OpenUpStream(1)
			switch {
			case chunks[0] != nil:
				k.said("ebsp_open_up_stream", errOpenUpTwice)
			case k.free() < up.bufSize():
				k.said("ebsp_open_up_stream", errStreamMemory)
			default:
				k.said("ebsp_open_up_stream")
				if mv.Size != up.tokenSize || !mv.SetBuffer || !k.local().Contains(mv.Buffer, up.tokenSize) {
					k.t.Errorf("ebsp_open_up_stream returned %d and %p", mv.Size, mv.Buffer)
				}
				up.cursor = 0
				hand(mv.Buffer)
			}
			syncUp()
		case 6:
			size := []int{1 + k.in.u16()%up.tokenSize, up.tokenSize, up.tokenSize + 1, -k.in.next()}[k.in.next()%4]
			k.c.SetUpChunkSize(1, size)
			if chunks[0] == nil {
				k.said("ebsp_set_up_chunk_size", "BSP ERROR: ebsp_set_up_chunk_size: this core's stream 1 is not open (superstep 0)")
				continue
			}
			k.said("ebsp_set_up_chunk_size")
			binary.LittleEndian.PutUint32(chunks[0].data, uint32(int32(size)))
		case 7:
			prealloc := k.in.next()%2 == 1
			mv := k.call(func() StreamResult { return k.c.MoveChunkUp(1, prealloc) })
			if chunks[0] == nil {
				k.said("ebsp_move_chunk_up", "BSP ERROR: ebsp_move_chunk_up: this core's stream 1 is not open (superstep 0)")
				continue
			}
			if prealloc && chunks[1] == nil && k.free() < up.bufSize() {
				k.said("ebsp_move_chunk_up", errStreamMemory)
				continue
			}
			k.said("ebsp_move_chunk_up")
			n := min(chunks[0].size, len(up.area)-up.cursor)
			copy(up.area[up.cursor:], chunks[0].data[:n])
			up.cursor += n
			if mv.Size != up.tokenSize || !mv.SetBuffer {
				k.t.Errorf("ebsp_move_chunk_up returned %d (buffer set: %v); want %d", mv.Size, mv.SetBuffer, up.tokenSize)
			}
			sent := chunks[0]
			if prealloc {
				spare := chunks[1]
				chunks[1] = sent
				if spare != nil && mv.Buffer != spare.p || mv.Buffer == sent.p {
					k.t.Errorf("ebsp_move_chunk_up with prealloc handed out %p; want the other buffer", mv.Buffer)
				}
			} else {
				chunks[1] = nil
				if mv.Buffer != sent.p {
					k.t.Errorf("ebsp_move_chunk_up handed out %p; want the same buffer %p", mv.Buffer, sent.p)
				}
			}
			hand(mv.Buffer)
			syncUp()
		case 8:
			k.call(func() StreamResult { return k.c.CloseLegacy(1, true) })
			if chunks[0] == nil {
				k.said("ebsp_close_up_stream", errCloseClosed)
				continue
			}
			k.said("ebsp_close_up_stream")
			chunks = [2]*upChunk{}
			syncUp()
			k.checkArea(up)
		case 9:
			k.mixUp(k.in.next() % 5)
		case 10:
			return
		}
	}
	k.checkMemory()
}

// mixUp makes a call on the wrong kind of stream or a stream that does
// not exist; each prints the board's text and changes nothing.
func (k *fuzzKernel) mixUp(which int) {
	var mv StreamResult
	want := errMixedUpDown
	switch which {
	case 0:
		mv = k.c.OpenUpStream(0)
	case 1:
		mv = k.c.OpenDownStream(1)
	case 2:
		mv = k.c.MoveChunkUp(0, false)
	case 3:
		mv = k.c.MoveChunkDown(2, true)
		want = errNoSuchStream
	case 4:
		mv = k.c.CloseLegacy(-1, true)
		want = errNoSuchStream
	}
	k.said("mixed-up call", want)
	if mv != (StreamResult{}) {
		k.t.Errorf("mixed-up call %d returned %+v", which, mv)
	}
}

// FuzzStreamCorrupt lets the host overwrite words of a stream's area (it
// may: the area is its memory) and then runs fuzzed stream calls on it.
// What must hold: the engine keeps its cursor inside the area, hands out
// tokens of at most the token size from local memory, writes nothing
// outside the area, and frees its buffers on close.
func FuzzStreamCorrupt(f *testing.F) {
	// ops: 0 open, 1 move down, 2 seek, 3 move up, 4 close.
	f.Add(uint16(160), uint16(16), []byte{8, 3, 0, 1, 1, 1, 1, 2, 0})
	f.Add(uint16(160), uint16(16), []byte{20, 2, 0, 1, 1, 1, 1, 2, 0, 2, 3, 2, 0})
	f.Add(uint16(64), uint16(32), []byte{1, 6, 0, 1, 1, 1, 1, 4, 0, 1, 0})
	f.Add(uint16(0), uint16(16), []byte{1, 6, 0, 1, 1, 2, 1, 4})
	f.Add(uint16(300), uint16(40), []byte{2, 7, 0, 3, 9, 1, 0, 1, 1, 3, 2, 2, 3, 1, 1, 1, 0, 2, 2, 1, 1, 4, 0, 1})
	f.Fuzz(func(t *testing.T, size, tokenSize uint16, ops []byte) {
		tokenSize = max(tokenSize, MinTokenSize)
		need := chainSize(int(size), int(tokenSize))
		if need > fuzzMemory.ExtSize-guardSize {
			return
		}
		m := fuzzMachine(t, false)
		out := recordLines(m)
		data := fuzzData(int(size), len(ops))
		areaP, err := m.CreateStream(int(size), int(tokenSize), unsafe.Pointer(unsafe.SliceData(data)))
		if err != nil {
			t.Fatal(err)
		}
		s := newStreamModel(0, anyStream, int(tokenSize), areaP, need)
		in := &fuzzInput{ops}
		for n := in.next() % 4; n >= 0; n-- {
			at := 4 * (in.u16() % (need / 4))
			v := []int{-1, -8, -16, -24, 0, 1, s.tokenSize, s.tokenSize + 1, need, math.MaxInt32, math.MinInt32, in.u16() - 0x8000}[in.next()%12]
			binary.LittleEndian.PutUint32(s.real[at:], uint32(int32(v)))
		}
		k := &fuzzKernel{t: t, m: m, in: in, out: out, streams: []*streamModel{s}}
		k.extSnap = append([]byte(nil), bytesAt(m.Memory().Ext().Base(), m.Memory().Ext().Size())...)
		runAgain(t, m, func(c kcore) {
			k.c = c
			k.runCorrupt(s)
		})
	})
}

// runCorrupt runs stream calls on a corrupt stream and checks what can
// still be checked.
func (k *fuzzKernel) runCorrupt(s *streamModel) {
	src := make([]byte, s.tokenSize+8)
	for k.in.more() && !k.t.Failed() {
		switch op := k.in.next() % 5; op {
		case 0:
			s.open = s.open || k.c.StreamOpen(s.id).Size != 0
		case 1:
			mv := k.call(func() StreamResult { return k.c.StreamMoveDown(s.id, k.in.next()%2 == 1) })
			if mv.Size < 0 || mv.Size > s.tokenSize || (mv.Size > 0 && !k.local().Contains(mv.Buffer, mv.Size)) {
				k.t.Errorf("bsp_stream_move_down handed out %d bytes at %p", mv.Size, mv.Buffer)
			}
		case 2:
			delta := k.in.delta()
			k.call(func() StreamResult { return k.c.StreamSeek(s.id, delta) })
		case 3:
			n := 1 + k.in.next()%s.tokenSize
			k.call(func() StreamResult { return k.c.StreamMoveUp(s.id, unsafe.Pointer(&src[0]), n, true) })
		case 4:
			k.call(func() StreamResult { return k.c.StreamClose(s.id) })
			s.open = false
		}
		k.out.take(k.c.Pid())
		o := k.c.streams.open[s.id]
		if o != nil && (o.cursor < 0 || o.cursor > len(s.real)-headerSize) {
			k.t.Errorf("the cursor is at byte %d, outside the %d-byte area", o.cursor, len(s.real))
		}
		bufs := 0
		if o != nil {
			bufs = map[bool]int{false: 0, true: 1}[o.cur != nil] + map[bool]int{false: 0, true: 1}[o.next != nil]
		}
		if used := k.local().InUse(); used != bufs*s.bufSize() {
			k.t.Errorf("local memory in use: %d bytes, with %d token buffers of %d", used, bufs, s.bufSize())
		}
		ext := bytesAt(k.m.Memory().Ext().Base(), len(k.extSnap))
		off := int(uintptr(s.base) - uintptr(unsafe.Pointer(&ext[0])))
		if !bytes.Equal(ext[:off], k.extSnap[:off]) || !bytes.Equal(ext[off+len(s.real):], k.extSnap[off+len(s.real):]) {
			k.t.Errorf("external memory outside the stream changed")
		}
	}
}
