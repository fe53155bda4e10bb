package runtime

// Fuzz targets for the stream engine (bsp_stream_* and the deprecated
// ebsp_*_stream calls), driven through the same Core methods capi calls.
// Plain `go test ./runtime/` runs only the seeds (well under a second). To
// fuzz for longer, one target at a time:
//
//	go test ./runtime/ -run '^$' -fuzz '^FuzzStreamCurrent$' -fuzztime 10m
//	go test ./runtime/ -run '^$' -fuzz '^FuzzStreamLegacy$' -fuzztime 10m
//	go test ./runtime/ -run '^$' -fuzz '^FuzzStreamCorrupt$' -fuzztime 10m
//
// A failing input is saved under runtime/testdata/fuzz/<target>/ and rerun
// by every plain `go test` from then on; commit it with the fix. The
// allocator under the streams has its own target, emesh.FuzzArena.

import (
	"bytes"
	"encoding/binary"
	"math"
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

// chain is the model of a stream: its tokens, in order.
type chain [][]byte

// cut makes the chain bsp_stream_create lays out for data.
func cut(data []byte, tokenSize int) chain {
	var c chain
	for len(data) > 0 {
		n := min(tokenSize, len(data))
		c, data = append(c, data[:n]), data[n:]
	}
	return c
}

// offset is the area offset of the header before token k.
func (c chain) offset(k int) int {
	at := 0
	for _, tok := range c[:k] {
		at += headerSize + len(tok)
	}
	return at
}

// checkLayout compares a stream's area with the chain: header(0, size0)
// token0 header(size0, size1) ... header(sizeN, 0), as the host reads it.
// It reports with Errorf, as kernels call it off the test's goroutine.
func checkLayout(t *testing.T, area []byte, c chain) {
	t.Helper()
	at, prev := 0, 0
	for k := 0; k <= len(c); k++ {
		next := 0
		if k < len(c) {
			next = len(c[k])
		}
		if at+headerSize > len(area) {
			t.Errorf("header %d at byte %d lies past the end of the %d-byte area", k, at, len(area))
			return
		}
		got := [2]int32{int32(binary.LittleEndian.Uint32(area[at:])), int32(binary.LittleEndian.Uint32(area[at+4:]))}
		if got != [2]int32{int32(prev), int32(next)} {
			t.Errorf("header %d at byte %d is %v; want [%d %d]", k, at, got, prev, next)
			return
		}
		at += headerSize
		if k < len(c) {
			if at+next > len(area) || !bytes.Equal(area[at:at+next], c[k]) {
				t.Errorf("token %d of %d bytes at byte %d differs from %x (area of %d bytes)", k, next, at, c[k], len(area))
				return
			}
			at += next
		}
		prev = next
	}
}

// streamModel is what a kernel expects of one stream it uses.
type streamModel struct {
	api       StreamAPI
	id        int
	tokens    chain
	areaSize  int
	tokenSize int
	area      []byte

	open    bool
	dir     direction
	cursor  int    // token index of the next token
	handed  []byte // the token last handed out by a move down, as it was handed out
	handedP unsafe.Pointer
}

// room is what a move up may still write at the cursor.
func (s *streamModel) room() int { return s.areaSize - s.tokens.offset(s.cursor) - 2*headerSize }

// fuzzKernel is a core running fuzzed stream calls and checking each
// result against the models.
type fuzzKernel struct {
	t       *testing.T
	c       kcore
	m       *Machine
	in      *fuzzInput
	extSnap []byte // external memory as it must stay outside the streams
	streams []*streamModel
	written byte // varies the bytes moved up
}

func (k *fuzzKernel) local() *emesh.Arena { return k.m.Memory().Local(k.c.Pid()) }

// wantErr checks a call failed (want) or succeeded (!want).
func (k *fuzzKernel) wantErr(call string, err *Error, want bool) bool {
	k.t.Helper()
	switch {
	case want && err == nil:
		k.t.Errorf("%s succeeded; the model expects misuse", call)
	case !want && err != nil:
		k.t.Errorf("%s: unexpected %v", call, err)
	case err != nil && (err.Pid != k.c.Pid() || err.Call != call || err.What == ""):
		k.t.Errorf("%s: malformed error %#v", call, err)
	}
	return err != nil
}

// checkMemory checks external memory outside the stream areas is as it
// was, the last token handed out is intact, and local memory holds exactly
// the token buffers of the open streams (one or two each).
func (k *fuzzKernel) checkMemory() {
	k.t.Helper()
	ext := bytesAt(k.m.Memory().Ext().Base(), len(k.extSnap))
	at := 0
	for _, s := range k.streams {
		off := int(uintptr(unsafe.Pointer(&s.area[0])) - uintptr(unsafe.Pointer(&ext[0])))
		if !bytes.Equal(ext[at:off], k.extSnap[at:off]) {
			k.t.Errorf("external memory outside the streams changed (bytes %#x..%#x)", at, off)
		}
		at = off + s.areaSize
	}
	if !bytes.Equal(ext[at:], k.extSnap[at:]) {
		k.t.Errorf("external memory after the streams changed (from byte %#x)", at)
	}
	lo, hi := 0, 0
	for _, s := range k.streams {
		if s.handedP != nil && !bytes.Equal(bytesAt(s.handedP, len(s.handed)), s.handed) {
			k.t.Errorf("stream %d: the token handed out last changed before the next move down", s.id)
		}
		if s.open {
			r := (s.tokenSize + emesh.Align - 1) &^ (emesh.Align - 1)
			lo, hi = lo+r, hi+2*r
		}
	}
	if used := k.local().InUse(); used < lo || used > hi {
		k.t.Errorf("local memory in use: %d bytes; the open streams' token buffers take %d..%d", used, lo, hi)
	}
}

func (k *fuzzKernel) open(s *streamModel, call string) Move {
	mv, err := k.c.StreamOpen(call, s.id, s.api)
	if s.open {
		k.wantErr(call, err, true)
		return Move{}
	}
	if err != nil {
		// Only a full local memory may refuse a token buffer.
		if p := k.c.Malloc(s.tokenSize); p != nil {
			k.t.Errorf("%s: %v, yet local memory has room for %d bytes", call, err, s.tokenSize)
			_ = k.c.Free(p)
		}
		k.wantErr(call, err, true)
		return Move{}
	}
	if mv.Size != s.tokenSize || !k.local().Contains(mv.Buffer, s.tokenSize) {
		k.t.Errorf("%s: buffer %p of %d bytes; want %d bytes in local memory", call, mv.Buffer, mv.Size, s.tokenSize)
	}
	s.open, s.dir, s.cursor = true, undecided, 0
	if s.api == LegacyDown {
		s.dir = movingDown
	} else if s.api == LegacyUp {
		s.dir = movingUp
	}
	return mv
}

func (k *fuzzKernel) moveDown(s *streamModel, call string, preload bool) {
	mv, err := k.c.StreamMoveDown(call, s.id, s.api, preload)
	if k.wantErr(call, err, !s.open || s.dir == movingUp) {
		return
	}
	await(k.c, mv)
	s.dir, s.handed, s.handedP = movingDown, nil, nil
	if s.cursor == len(s.tokens) {
		if mv.Size != 0 {
			k.t.Errorf("%s at the end returned %d bytes; want 0", call, mv.Size)
		}
		return
	}
	want := s.tokens[s.cursor]
	got := bytesAt(mv.Buffer, mv.Size)
	switch {
	case mv.Size != len(want):
		k.t.Errorf("%s: token %d has %d bytes; want %d", call, s.cursor, mv.Size, len(want))
	case !k.local().Contains(mv.Buffer, mv.Size):
		k.t.Errorf("%s: token buffer %p is not in local memory", call, mv.Buffer)
	case !bytes.Equal(got, want):
		k.t.Errorf("%s: token %d is %x; want %x", call, s.cursor, got, want)
	default:
		s.handed, s.handedP = append([]byte(nil), got...), mv.Buffer
	}
	s.cursor++
}

func (k *fuzzKernel) seek(s *streamModel, call string, delta int) {
	err := k.c.StreamSeek(call, s.id, s.api, delta)
	if k.wantErr(call, err, !s.open || s.dir == movingUp) {
		return
	}
	s.cursor = int(min(max(int64(s.cursor)+int64(delta), 0), int64(len(s.tokens))))
}

// movedUp records a token moved up in the model.
func (s *streamModel) movedUp(data []byte) {
	s.tokens = append(s.tokens[:s.cursor:s.cursor], append([]byte(nil), data...))
	s.cursor++
	s.dir = movingUp
}

// fill writes n varying bytes to p and returns them.
func (k *fuzzKernel) fill(p unsafe.Pointer, n int) []byte {
	b := bytesAt(p, n)
	for i := range b {
		k.written++
		b[i] = k.written
	}
	return b
}

func (k *fuzzKernel) close(s *streamModel, call string) {
	wait, err := k.c.StreamClose(call, s.id, s.api)
	if k.wantErr(call, err, !s.open) {
		return
	}
	k.c.DMA().Wait(wait)
	k.c.StreamRelease(s.id, s.api)
	s.open, s.handed, s.handedP = false, nil, nil
	checkLayout(k.t, s.area, s.tokens)
}

// newStreamModel describes the stream the host just made.
func newStreamModel(m *Machine, api StreamAPI, id int, area unsafe.Pointer, size, tokenSize int, data []byte) *streamModel {
	s := &streamModel{api: api, id: id, tokenSize: tokenSize, tokens: cut(data, tokenSize)}
	s.areaSize = size + headerSize*((size+tokenSize-1)/tokenSize+1)
	s.area = bytesAt(area, s.areaSize)
	return s
}

// extNeed is the external memory a stream of size bytes in tokens of
// tokenSize takes: its data, a header per token and one more, rounded up
// to the allocator's alignment.
func extNeed(size, tokenSize int) int {
	tokens := (size + tokenSize - 1) / max(tokenSize, 1)
	return (size + headerSize*(tokens+1) + emesh.Align - 1) &^ (emesh.Align - 1)
}

// fuzzData is n bytes of stream data derived from seed.
func fuzzData(n, seed int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(seed + i*31 + i>>8)
	}
	return b
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
	f.Fuzz(func(t *testing.T, size, tokenSize uint16, withData, dmaSync bool, ops []byte) {
		m := fuzzMachine(t, dmaSync)
		var data []byte
		var src unsafe.Pointer
		if withData {
			data = fuzzData(int(size), len(ops))
			src = unsafe.Pointer(unsafe.SliceData(data))
		}
		areaP, err := m.CreateStream(int(size), int(tokenSize), src)
		fits := extNeed(int(size), int(tokenSize)) <= fuzzMemory.ExtSize-guardSize
		if (err == nil) != (tokenSize >= MinTokenSize && fits) {
			t.Fatalf("CreateStream(%d, %d): %v; want an error: %v", size, tokenSize, err, tokenSize < MinTokenSize || !fits)
		}
		if err != nil {
			return
		}
		s := newStreamModel(m, CurrentStreams, 0, areaP, int(size), int(tokenSize), data)
		checkLayout(t, s.area, s.tokens)
		k := &fuzzKernel{t: t, m: m, in: &fuzzInput{ops}, streams: []*streamModel{s}}
		k.extSnap = append([]byte(nil), bytesAt(m.Memory().Ext().Base(), m.Memory().Ext().Size())...)
		for first := true; first || k.in.more(); first = false {
			runAgain(t, m, func(c kcore) {
				k.c = c
				k.runCurrent(s)
			})
			s.open, s.handed, s.handedP = false, nil, nil
			checkLayout(t, s.area, s.tokens)
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
	// memory. A spare token's worth guards against reads past n.
	srcs := [2][]byte{make([]byte, s.tokenSize+64), make([]byte, s.tokenSize+64)}
	nextSrc := 0
	for k.in.more() && !k.t.Failed() {
		k.checkMemory()
		switch k.in.next() % 8 {
		case 0:
			k.open(s, "bsp_stream_open")
		case 1:
			k.moveDown(s, "bsp_stream_move_down", k.in.next()%2 == 1)
		case 2:
			arg := k.in.next()
			wait := arg&1 == 1
			n := []int{s.tokenSize, 1 + k.in.u16()%s.tokenSize, s.tokenSize + 1 + k.in.next(), -k.in.next()}[arg>>1%4]
			p := unsafe.Pointer(&srcs[nextSrc][0])
			payload := k.fill(p, min(max(n, 0), s.tokenSize))
			const call = "bsp_stream_move_up"
			mv, err := k.c.StreamMoveUp(call, s.id, s.api, p, n, wait)
			if k.wantErr(call, err, !s.open || s.dir == movingDown || n <= 0 || n > s.tokenSize || n > s.room()) {
				continue
			}
			await(k.c, mv)
			if mv.Size != n {
				k.t.Errorf("%s returned %d; want %d", call, mv.Size, n)
			}
			s.movedUp(payload)
			nextSrc = 1 - nextSrc
		case 3:
			k.seek(s, "bsp_stream_seek", k.in.delta())
		case 4:
			k.close(s, "bsp_stream_close")
		case 5:
			return
		case 6:
			id := []int{1, -1, math.MaxInt32, math.MinInt32}[k.in.next()%4]
			_, err := k.c.StreamOpen("bsp_stream_open", id, CurrentStreams)
			k.wantErr("bsp_stream_open", err, true)
		case 7:
			_, err := k.c.StreamMoveUp("bsp_stream_move_up", s.id, s.api, nil, 1, true)
			k.wantErr("bsp_stream_move_up", err, true)
		}
	}
	k.checkMemory()
}

// FuzzStreamLegacy makes a down stream and an up stream for core 0 with
// the deprecated host calls and runs a fuzzed sequence of the deprecated
// core calls on them, with misuse mixing the two.
func FuzzStreamLegacy(f *testing.F) {
	// ops: 0 open down, 1 move chunk down, 2 move down cursor, 3 reset
	// down cursor, 4 close down, 5 open up, 6 set up chunk size, 7 move
	// chunk up, 8 close up, 9 mixed-up calls, 10 next run.
	f.Add(uint16(100), uint16(16), uint16(200), uint16(40), false, []byte{0, 1, 1, 1, 0, 1, 1, 2, 255, 1, 0, 3, 1, 1, 4, 5, 7, 1, 7, 1, 6, 5, 7, 0, 7, 1, 8})
	f.Add(uint16(1000), uint16(7), uint16(100), uint16(33), true, []byte{5, 0, 1, 1, 7, 1, 6, 200, 7, 0, 7, 1, 7, 1, 7, 1, 7, 1, 7, 1, 9, 0, 9, 1, 9, 2, 9, 3, 8, 10, 0, 1, 1, 10, 5, 7, 1})
	f.Add(uint16(40), uint16(4000), uint16(4000), uint16(4000), false, []byte{0, 1, 1, 5, 7, 1, 7, 1, 4, 5, 7, 1, 7, 1, 8, 4, 8})
	f.Add(uint16(3), uint16(1), uint16(0), uint16(1), false, []byte{0, 1, 0, 1, 0, 1, 0, 1, 0, 2, 254, 1, 0, 5, 7, 0, 6, 0, 6, 2})
	f.Fuzz(func(t *testing.T, downSize, downChunk, upSize, upChunk uint16, dmaSync bool, ops []byte) {
		m := fuzzMachine(t, dmaSync)
		data := fuzzData(int(downSize), len(ops))
		n, err := m.CreateDownStream(unsafe.Pointer(unsafe.SliceData(data)), 0, int(downSize), int(downChunk))
		downNeed := extNeed(int(downSize), int(downChunk))
		free := fuzzMemory.ExtSize - guardSize
		if (err == nil) != (downChunk > 0 && downNeed <= free) {
			t.Fatalf("CreateDownStream(%d, %d): %v", downSize, downChunk, err)
		}
		if err != nil {
			return
		}
		area, err := m.CreateUpStream(0, int(upSize), int(upChunk))
		if (err == nil) != (upChunk > 0 && extNeed(int(upSize), int(upChunk)) <= free-downNeed) {
			t.Fatalf("CreateUpStream(%d, %d): %v", upSize, upChunk, err)
		}
		if err != nil {
			return
		}
		if n != 0 {
			t.Fatalf("the first down stream of core 0 is number %d", n)
		}
		downArea := m.memory.streams[0].area
		down := newStreamModel(m, LegacyDown, 0, downArea, int(downSize), int(downChunk), data)
		up := newStreamModel(m, LegacyUp, 1, area, int(upSize), int(upChunk), nil)
		k := &fuzzKernel{t: t, m: m, in: &fuzzInput{ops}, streams: []*streamModel{down, up}}
		k.extSnap = append([]byte(nil), bytesAt(m.Memory().Ext().Base(), m.Memory().Ext().Size())...)
		for first := true; first || k.in.more(); first = false {
			runAgain(t, m, func(c kcore) {
				k.c = c
				k.runLegacy(down, up)
			})
			for _, s := range k.streams {
				s.open, s.handed, s.handedP = false, nil, nil
				checkLayout(t, s.area, s.tokens)
			}
			if t.Failed() {
				return
			}
		}
	})
}

// runLegacy runs operations until the input asks for the next run.
func (k *fuzzKernel) runLegacy(down, up *streamModel) {
	var chunk unsafe.Pointer // the buffer the kernel writes the next chunk up in
	upChunk := up.tokenSize
	for k.in.more() && !k.t.Failed() {
		k.checkMemory()
		switch k.in.next() % 11 {
		case 0:
			k.open(down, "ebsp_open_down_stream")
		case 1:
			k.moveDown(down, "ebsp_move_chunk_down", k.in.next()%2 == 1)
		case 2:
			k.seek(down, "ebsp_move_down_cursor", k.in.delta())
		case 3:
			k.seek(down, "ebsp_reset_down_cursor", math.MinInt32)
		case 4:
			k.close(down, "ebsp_close_down_stream")
		case 5:
			if mv := k.open(up, "ebsp_open_up_stream"); mv.Buffer != nil {
				chunk, upChunk = mv.Buffer, up.tokenSize
			}
		case 6:
			size := []int{1 + k.in.u16()%up.tokenSize, up.tokenSize, up.tokenSize + 1, -k.in.next()}[k.in.next()%4]
			err := k.c.SetUpChunkSize("ebsp_set_up_chunk_size", up.id, size)
			if !k.wantErr("ebsp_set_up_chunk_size", err, !up.open || size <= 0 || size > up.tokenSize) {
				upChunk = size
			}
		case 7:
			k.moveChunkUp(up, &chunk, upChunk, k.in.next()%2 == 1)
		case 8:
			k.close(up, "ebsp_close_up_stream")
		case 9:
			k.mixUp(down, up, k.in.next()%4)
		case 10:
			return
		}
	}
	k.checkMemory()
}

// moveChunkUp is ebsp_move_chunk_up of the chunk in *chunk; the kernel
// writes its next chunk in the buffer handed back.
func (k *fuzzKernel) moveChunkUp(up *streamModel, chunk *unsafe.Pointer, n int, prealloc bool) {
	const call = "ebsp_move_chunk_up"
	var payload []byte
	if up.open {
		payload = k.fill(*chunk, n)
	}
	mv, err := k.c.MoveChunkUp(call, up.id, *chunk, prealloc)
	if k.wantErr(call, err, !up.open || n > up.room()) {
		return
	}
	await(k.c, mv)
	if mv.Size != n || !k.local().Contains(mv.Buffer, up.tokenSize) || (!prealloc && mv.Buffer != *chunk) {
		k.t.Errorf("%s returned %d bytes and buffer %p (sent from %p); want %d bytes and a token buffer", call, mv.Size, mv.Buffer, *chunk, n)
	}
	up.movedUp(payload)
	*chunk = mv.Buffer
}

// mixUp makes a call on the wrong kind of stream or a stream that does
// not exist; each must fail and change nothing.
func (k *fuzzKernel) mixUp(down, up *streamModel, which int) {
	var err *Error
	call := []string{"ebsp_open_up_stream", "ebsp_open_down_stream", "ebsp_move_chunk_up", "ebsp_move_chunk_down"}[which]
	switch which {
	case 0:
		_, err = k.c.StreamOpen(call, down.id, LegacyUp)
	case 1:
		_, err = k.c.StreamOpen(call, up.id, LegacyDown)
	case 2:
		_, err = k.c.MoveChunkUp(call, down.id, nil, false)
	case 3:
		_, err = k.c.StreamMoveDown(call, 2, LegacyDown, true)
	}
	k.wantErr(call, err, true)
}

// FuzzStreamCorrupt lets the host overwrite words of a stream's area (it
// may: the area is its memory) and then runs fuzzed stream calls on it.
// No model predicts the tokens any more; what must hold is that the engine
// keeps its cursor inside the area, hands out tokens of at most the token
// size from local memory, writes nothing outside the area, reports
// misuse or corruption as an *Error, and frees its buffers on close.
func FuzzStreamCorrupt(f *testing.F) {
	// ops: 0 open, 1 move down, 2 seek, 3 move up, 4 close.
	f.Add(uint16(160), uint16(16), []byte{8, 3, 0, 1, 1, 1, 1, 2, 0})
	f.Add(uint16(160), uint16(16), []byte{20, 2, 0, 1, 1, 1, 1, 2, 0, 2, 3, 2, 0})
	f.Add(uint16(64), uint16(32), []byte{1, 6, 0, 1, 1, 1, 1, 4, 0, 1, 0})
	f.Add(uint16(0), uint16(16), []byte{1, 6, 0, 1, 1, 2, 1, 4})
	f.Fuzz(func(t *testing.T, size, tokenSize uint16, ops []byte) {
		tokenSize = max(tokenSize, MinTokenSize)
		if extNeed(int(size), int(tokenSize)) > fuzzMemory.ExtSize-guardSize {
			return
		}
		m := fuzzMachine(t, false)
		data := fuzzData(int(size), len(ops))
		areaP, err := m.CreateStream(int(size), int(tokenSize), unsafe.Pointer(unsafe.SliceData(data)))
		if err != nil {
			t.Fatal(err)
		}
		s := newStreamModel(m, CurrentStreams, 0, areaP, int(size), int(tokenSize), data)
		in := &fuzzInput{ops}
		for n := in.next() % 4; n >= 0; n-- {
			at := 4 * (in.u16() % (s.areaSize / 4))
			v := []int{-1, -8, -16, -24, 0, 1, s.tokenSize, s.tokenSize + 1, s.areaSize, math.MaxInt32, math.MinInt32, in.u16() - 0x8000}[in.next()%12]
			binary.LittleEndian.PutUint32(s.area[at:], uint32(int32(v)))
		}
		k := &fuzzKernel{t: t, m: m, in: in, streams: []*streamModel{s}}
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
	src := make([]byte, s.tokenSize)
	for k.in.more() && !k.t.Failed() {
		var err *Error
		switch op := k.in.next() % 5; op {
		case 0:
			_, err = k.c.StreamOpen("bsp_stream_open", s.id, s.api)
			s.open = s.open || err == nil
		case 1:
			var mv Move
			mv, err = k.c.StreamMoveDown("bsp_stream_move_down", s.id, s.api, k.in.next()%2 == 1)
			await(k.c, mv)
			if mv.Size < 0 || mv.Size > s.tokenSize || (mv.Size > 0 && !k.local().Contains(mv.Buffer, mv.Size)) {
				k.t.Errorf("bsp_stream_move_down handed out %d bytes at %p", mv.Size, mv.Buffer)
			}
		case 2:
			err = k.c.StreamSeek("bsp_stream_seek", s.id, s.api, k.in.delta())
		case 3:
			var mv Move
			mv, err = k.c.StreamMoveUp("bsp_stream_move_up", s.id, s.api, unsafe.Pointer(&src[0]), 1+k.in.next()%s.tokenSize, true)
			await(k.c, mv)
		case 4:
			var wait uint32
			if wait, err = k.c.StreamClose("bsp_stream_close", s.id, s.api); err == nil {
				k.c.DMA().Wait(wait)
				k.c.StreamRelease(s.id, s.api)
				s.open = false
			}
		}
		if err != nil && (err.Pid != k.c.Pid() || err.What == "") {
			k.t.Errorf("malformed error %#v", err)
		}
		if o := k.c.streams[s.id]; o != nil && (o.cursor < 0 || o.cursor > s.areaSize-headerSize) {
			k.t.Errorf("the cursor is at byte %d, outside the %d-byte area", o.cursor, s.areaSize)
		}
		k.checkMemory()
	}
}

// TestStreamSeekCorruptPrevSize is what FuzzStreamCorrupt found: a
// negative size before a token, written by the host, walked a seek back
// out of the area (and the process into a segfault).
func TestStreamSeekCorruptPrevSize(t *testing.T) {
	m := fuzzMachine(t, false)
	data := fuzzData(160, 1)
	p, err := m.CreateStream(len(data), 16, unsafe.Pointer(&data[0]))
	if err != nil {
		t.Fatal(err)
	}
	binary.LittleEndian.PutUint32(bytesAt(p, 3*24)[2*24:], uint32(0xfffffff0)) // token 1's size before token 2: -16
	runAgain(t, m, func(c kcore) {
		if _, err := c.StreamOpen("bsp_stream_open", 0, CurrentStreams); err != nil {
			t.Error(err)
			return
		}
		if err := c.StreamSeek("bsp_stream_seek", 0, CurrentStreams, 5); err != nil {
			t.Error(err)
		}
		err := c.StreamSeek("bsp_stream_seek", 0, CurrentStreams, math.MinInt32)
		if err == nil || err.What != "stream 0 is corrupt: a token of -16 bytes before byte 48 of its area" {
			t.Errorf("seek back over a corrupt size: %v", err)
		}
		mv, err := c.StreamMoveDown("bsp_stream_move_down", 0, CurrentStreams, false)
		if err != nil || !bytes.Equal(bytesAt(await(c, mv).Buffer, mv.Size), data[32:48]) {
			t.Errorf("after the failed seek the cursor is not at token 2: %v", err)
		}
	})
}

// TestStreamOpenCorruptFirstToken: open prefetched a first token whose
// size the host had overwritten without checking it against the area, so
// the DMA read past the area's end.
func TestStreamOpenCorruptFirstToken(t *testing.T) {
	m := fuzzMachine(t, false)
	p, err := m.CreateStream(0, 64, nil)
	if err != nil {
		t.Fatal(err)
	}
	binary.LittleEndian.PutUint32(bytesAt(p, 8)[4:], 64) // a 64-byte token in an 8-byte area
	runAgain(t, m, func(c kcore) {
		if _, err := c.StreamOpen("bsp_stream_open", 0, CurrentStreams); err != nil {
			t.Error(err)
			return
		}
		if c.streams[0].pending != nil {
			t.Error("open fetches a token that runs past the area")
		}
		_, err := c.StreamMoveDown("bsp_stream_move_down", 0, CurrentStreams, true)
		if err == nil || err.What != "stream 0 is corrupt: a token of 64 bytes at byte 0 of its area" {
			t.Errorf("move down of the corrupt token: %v", err)
		}
	})
}
