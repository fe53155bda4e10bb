package engine

import (
	"encoding/binary"
	"fmt"
	"math"
	"sync"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ints is the data of a down stream: count int32 values 0, 1, 2, ...
func ints(count int) []byte {
	b := make([]byte, 4*count)
	for i := 0; i < count; i++ {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(i))
	}
	return b
}

func area(s unsafe.Pointer, n int) []byte { return unsafe.Slice((*byte)(s), n) }

func header(a []byte, at int) [2]int32 {
	return [2]int32{int32(binary.LittleEndian.Uint32(a[at:])), int32(binary.LittleEndian.Uint32(a[at+4:]))}
}

// await stands for the C side of a stream call: wait for the stream's
// previous transfer and call again while the engine asks to, then wait
// for the transfer the call names.
func await(c kcore, call func() StreamResult) StreamResult {
	for {
		mv := call()
		if mv.Wait != 0 {
			c.DMA().Wait(mv.Wait)
		}
		if !mv.Again {
			return mv
		}
	}
}

// printed collects the lines cores print, per core.
type printed struct {
	mu    sync.Mutex
	lines map[int][]string
}

func recordLines(m *Machine) *printed {
	p := &printed{lines: map[int][]string{}}
	m.SetProbes(Probes{Print: func(pid int, text string) {
		p.mu.Lock()
		p.lines[pid] = append(p.lines[pid], text)
		p.mu.Unlock()
	}})
	return p
}

// take returns and forgets what core pid printed.
func (p *printed) take(pid int) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	l := p.lines[pid]
	delete(p.lines, pid)
	return l
}

// streamMachine is a test machine at the board's check level (the
// default), where the stream calls print only what the board printed.
func streamMachine(t *testing.T, n int) *Machine {
	m := newTestMachine(t, n)
	m.CommConfig(CheckBoard, 0)
	return m
}

func TestStreamCreateLayout(t *testing.T) {
	m := streamMachine(t, 1)
	data := ints(10) // 40 bytes in tokens of 16: 16, 16, 8
	p, err := m.CreateStream(40, 16, unsafe.Pointer(&data[0]))
	require.NoError(t, err)
	a := area(p, 40+4*8)
	assert.Equal(t, [2]int32{0, 16}, header(a, 0))
	assert.Equal(t, data[:16], a[8:24])
	assert.Equal(t, [2]int32{16, 16}, header(a, 24))
	assert.Equal(t, [2]int32{16, 8}, header(a, 48))
	assert.Equal(t, data[32:], a[56:64])
	assert.Equal(t, [2]int32{8, 0}, header(a, 64))

	empty, err := m.CreateStream(100, 32, nil)
	require.NoError(t, err)
	assert.Equal(t, [2]int32{0, 0}, header(area(empty, 8), 0))
	none, err := m.CreateStream(0, 24, unsafe.Pointer(&data[0]))
	require.NoError(t, err)
	assert.Equal(t, [2]int32{24, 0}, header(area(none, 8), 0), "the board's terminating header of a stream without tokens")
	assert.Equal(t, 3, m.Streams(), "ids in creation order")

	_, err = m.CreateStream(100, 15, nil)
	assert.Equal(t, HostText("ERROR: minimum token size is 16 bytes"), err)
	_, err = m.CreateStream(64<<20, 1024, nil)
	assert.Equal(t, HostText("ERROR: not enough memory in extmem for ebsp_stream_create"), err)
	_, err = m.CreateStream(-1, 16, nil)
	assert.EqualError(t, err, "bsp_stream_create: negative stream size -1")

	// Deprecated streams are numbered per core, apart from the others.
	n, err := m.CreateDownStream(unsafe.Pointer(&data[0]), 0, 40, 16)
	require.NoError(t, err)
	assert.Equal(t, 0, n, "first deprecated stream of core 0")
	up, err := m.CreateUpStream(0, 40, 16)
	require.NoError(t, err)
	assert.Equal(t, 3, m.Streams(), "deprecated streams do not take bsp_stream_create ids")
	assert.Equal(t, 40, m.memory.legacy[0][1].areaSize, "an up stream is raw")
	assert.Equal(t, up, m.memory.legacy[0][1].area)
	_, err = m.CreateDownStream(unsafe.Pointer(&data[0]), 0, 40, 8)
	assert.Equal(t, HostText("ERROR: minimum chunk size is 16 bytes"), err)
	_, err = m.CreateUpStream(0, 40, 15)
	assert.Equal(t, HostText("ERROR: minimum chunk size is 16 bytes"), err)
	_, err = m.CreateUpStream(0, 64<<20, 16)
	assert.Equal(t, HostText("ERROR: not enough memory in extmem for ebsp_get_buffered"), err)
	_, err = m.CreateDownStream(unsafe.Pointer(&data[0]), 0, 40<<20, 16)
	assert.Equal(t, HostText("ERROR: not enough memory in extmem for ebsp_send_buffered_raw"), err)
	_, err = m.CreateUpStream(1, 40, 16)
	assert.EqualError(t, err, "ebsp_create_up_stream: pid 1 out of range; the 1x1 mesh has cores 0..0")
}

func TestStreamLimits(t *testing.T) {
	m := streamMachine(t, 1)
	for i := 0; i < MaxStreams; i++ {
		_, err := m.CreateStream(0, 16, nil)
		require.NoError(t, err)
		_, err = m.CreateUpStream(0, 0, 16)
		require.NoError(t, err)
	}
	_, err := m.CreateStream(0, 16, nil)
	assert.Equal(t, HostText("ERROR: Reached limit of 1000 streams."), err)
	p, err := m.CreateUpStream(0, 0, 16)
	assert.Equal(t, HostText("ERROR: state.combuf.n_streams >= MAX_N_STREAMS"), err)
	assert.NotNil(t, p, "the board's call returned the area all the same")
}

// TestStreamDoubleBuffered streams 64 KiB (twice the local memory) through
// each core in 4 KiB tokens with preload, and checks every value.
func TestStreamDoubleBuffered(t *testing.T) {
	const count, tokenBytes = 16384, 4096
	m := streamMachine(t, 2)
	data := ints(count)
	for range 2 {
		_, err := m.CreateStream(len(data), tokenBytes, unsafe.Pointer(&data[0]))
		require.NoError(t, err)
	}
	runAgain(t, m, func(c kcore) {
		mv := c.StreamOpen(c.Pid())
		assert.Equal(t, tokenBytes, mv.Size)
		assert.Equal(t, 0, m.Memory().Local(c.Pid()).InUse(), "open takes no local memory")
		next, buffers := 0, map[unsafe.Pointer]bool{}
		for {
			mv := await(c, func() StreamResult { return c.StreamMoveDown(c.Pid(), true) })
			if mv.Size == 0 {
				assert.True(t, mv.SetBuffer)
				assert.Nil(t, mv.Buffer)
				break
			}
			buffers[mv.Buffer] = true
			for _, v := range unsafe.Slice((*int32)(mv.Buffer), mv.Size/4) {
				require.Equal(t, int32(next), v)
				next++
			}
		}
		assert.Equal(t, count, next)
		assert.Len(t, buffers, 2, "double buffering alternates two buffers")
		assert.Equal(t, 2*(tokenBytes+8), m.Memory().Local(c.Pid()).InUse(), "two buffers of a header and a token")
		await(c, func() StreamResult { return c.StreamClose(c.Pid()) })
		assert.Equal(t, 0, m.Memory().Local(c.Pid()).InUse(), "close frees the token buffers")
	})
}

// TestStreamUpThenDown: core 0 writes a stream up in one run; core 1 reads
// it down in the next; the host reads the chain in place.
func TestStreamUpThenDown(t *testing.T) {
	m := streamMachine(t, 2)
	p, err := m.CreateStream(5*32, 32, nil)
	require.NoError(t, err)
	runAgain(t, m, func(c kcore) {
		if c.Pid() != 0 {
			return
		}
		c.StreamOpen(0)
		bufs := [2]unsafe.Pointer{c.Malloc(32), c.Malloc(32)}
		for i := 0; i < 5; i++ {
			b := unsafe.Slice((*int32)(bufs[i%2]), 8)
			for j := range b {
				b[j] = int32(100*i + j)
			}
			size, want := 32, 32
			if i == 4 {
				size, want = 12, 16 // a short last token, rounded up to a multiple of 8
			}
			mv := await(c, func() StreamResult { return c.StreamMoveUp(0, bufs[i%2], size, false) })
			assert.Equal(t, want, mv.Size)
		}
		await(c, func() StreamResult { return c.StreamClose(0) })
	})
	a := area(p, 208)
	assert.Equal(t, [2]int32{0, 32}, header(a, 0))
	assert.Equal(t, [2]int32{32, 16}, header(a, 4*40))
	assert.Equal(t, []byte{144, 1, 0, 0, 145, 1, 0, 0, 146, 1, 0, 0, 0, 0, 0, 0}, a[4*40+8:4*40+24], "400, 401, 402, zero padding")
	assert.Equal(t, [2]int32{16, 0}, header(a, 4*40+8+16))
	runAgain(t, m, func(c kcore) {
		if c.Pid() != 1 {
			return
		}
		c.StreamOpen(0)
		var got []int32
		for {
			mv := await(c, func() StreamResult { return c.StreamMoveDown(0, false) })
			if mv.Size == 0 {
				break
			}
			got = append(got, unsafe.Slice((*int32)(mv.Buffer), mv.Size/4)...)
		}
		assert.Len(t, got, 4*8+4)
		assert.Equal(t, []int32{400, 401, 402, 0}, got[32:])
	})
}

// TestStreamSeek: a move down with preload moves the cursor past the
// preloaded token too, and a seek drops that token.
func TestStreamSeek(t *testing.T) {
	m := streamMachine(t, 1)
	data := ints(10 * 4) // ten tokens of 16 bytes: token k starts with 4k
	_, err := m.CreateStream(len(data), 16, unsafe.Pointer(&data[0]))
	require.NoError(t, err)
	runAgain(t, m, func(c kcore) {
		c.StreamOpen(0)
		first := func(preload bool) int32 {
			mv := await(c, func() StreamResult { return c.StreamMoveDown(0, preload) })
			if mv.Size == 0 {
				return -1
			}
			return *(*int32)(mv.Buffer) / 4
		}
		seek := func(delta int) { await(c, func() StreamResult { return c.StreamSeek(0, delta) }) }
		assert.Equal(t, int32(0), first(true))
		assert.Equal(t, 2*24, c.streams.open[0].cursor, "past the preloaded token 1")
		seek(3)
		assert.Equal(t, int32(5), first(true))
		seek(-2)
		assert.Equal(t, int32(5), first(false))
		seek(math.MinInt32)
		assert.Equal(t, int32(0), first(false))
		seek(math.MaxInt32)
		assert.Equal(t, int32(-1), first(true), "the end")
		seek(-1)
		assert.Equal(t, int32(9), first(false))
		seek(-100)
		assert.Equal(t, int32(0), first(false))
		seek(100)
		seek(-3)
		assert.Equal(t, int32(7), first(true))
		assert.Equal(t, int32(8), first(true))
		assert.Equal(t, int32(9), first(true))
		assert.Equal(t, int32(-1), first(true))
		assert.Equal(t, int32(9), first(true), "the board swaps the last token back in after the end")
		assert.Equal(t, int32(-1), first(false))
	})
}

// TestStreamAnyOrder: moves down, up and seeks on one open stream, as the
// board allows; and any core opens any stream that is not in use.
func TestStreamAnyOrder(t *testing.T) {
	m := streamMachine(t, 2)
	out := recordLines(m)
	data := ints(4 * 8) // four tokens of 32 bytes
	p, err := m.CreateStream(len(data), 32, unsafe.Pointer(&data[0]))
	require.NoError(t, err)
	_, err = m.CreateStream(64, 16, nil)
	require.NoError(t, err)
	runAgain(t, m, func(c kcore) {
		if c.Pid() == 1 {
			assert.Equal(t, 16, c.StreamOpen(1).Size)
			c.Sync()
			c.Sync()
			assert.Equal(t, 0, c.StreamOpen(0).Size)
			assert.Equal(t, []string{"BSP ERROR: stream with id 0 is in use"}, out.take(1))
			c.Sync()
			c.Sync()
			assert.Equal(t, 32, c.StreamOpen(0).Size, "closed by core 0: free again")
			await(c, func() StreamResult { return c.StreamClose(0) })
			return
		}
		c.Sync()
		assert.Equal(t, 32, c.StreamOpen(0).Size)
		assert.Equal(t, 0, c.StreamOpen(1).Size)
		assert.Equal(t, 0, c.StreamOpen(2).Size)
		assert.Equal(t, []string{"BSP ERROR: stream with id 1 is in use", "BSP ERROR: stream does not exist"}, out.take(0))
		c.Sync()
		c.Sync()
		mv := await(c, func() StreamResult { return c.StreamMoveDown(0, false) })
		assert.Equal(t, int32(0), *(*int32)(mv.Buffer))
		up := []int32{-1, -2, -3, -4}
		mv = await(c, func() StreamResult { return c.StreamMoveUp(0, unsafe.Pointer(&up[0]), 16, true) })
		assert.Equal(t, 16, mv.Size, "written over token 1, ending the stream after it")
		mv = await(c, func() StreamResult { return c.StreamMoveDown(0, false) })
		assert.Equal(t, 0, mv.Size)
		await(c, func() StreamResult { return c.StreamSeek(0, -1) })
		mv = await(c, func() StreamResult { return c.StreamMoveDown(0, true) })
		assert.Equal(t, []int32{-1, -2, -3, -4}, unsafe.Slice((*int32)(mv.Buffer), 4))
		await(c, func() StreamResult { return c.StreamSeek(0, math.MinInt32) })
		mv = await(c, func() StreamResult { return c.StreamMoveUp(0, unsafe.Pointer(&up[0]), 4, false) })
		assert.Equal(t, 8, mv.Size)
		await(c, func() StreamResult { return c.StreamClose(0) })
		assert.Empty(t, out.take(0))
		c.Sync()
	})
	a := area(p, 128+5*8)
	assert.Equal(t, [2]int32{0, 8}, header(a, 0))
	assert.Equal(t, []byte{255, 255, 255, 255, 0, 0, 0, 0}, a[8:16])
	assert.Equal(t, [2]int32{8, 0}, header(a, 16))
	assert.Equal(t, [2]int32{32, 16}, header(a, 40), "what the second move up wrote stays")
}

// TestStreamBoardTexts: the board's warning and errors of moves up and
// down, with their return values.
func TestStreamBoardTexts(t *testing.T) {
	m := streamMachine(t, 1)
	out := recordLines(m)
	_, err := m.CreateStream(40, 32, nil) // 40 + 2*8 + 8 = 64 bytes of area
	require.NoError(t, err)
	runAgain(t, m, func(c kcore) {
		src := make([]byte, 64)
		up := func(n int) int {
			return await(c, func() StreamResult { return c.StreamMoveUp(0, unsafe.Pointer(&src[0]), n, true) }).Size
		}
		c.StreamOpen(0)
		assert.Equal(t, 40, up(33))
		assert.Equal(t, []string{"BSP WARNING: Moving token of size 40 up to stream 0 with max token size 32"}, out.take(0))
		assert.Equal(t, 0, up(1))
		assert.Equal(t, []string{"BSP ERROR: Stream 0 has 16 space left, token of size 24 can not be moved up."}, out.take(0))
		assert.Equal(t, 0, up(0), "a token of 0 bytes fits exactly")
		assert.Equal(t, 0, up(-7), "rounds to 0 as well")
		assert.Equal(t, []string{"BSP ERROR: Stream 0 has 8 space left, token of size 16 can not be moved up."}, out.take(0))
		assert.Equal(t, 0, up(-100))
		assert.Equal(t, []string{"BSP ERROR: bsp_stream_move_up: token size -100 for stream 0 (superstep 0)"}, out.take(0))
		await(c, func() StreamResult { return c.StreamSeek(0, math.MinInt32) })
		mv := await(c, func() StreamResult { return c.StreamMoveDown(0, true) })
		assert.Equal(t, 32, mv.Size)
		assert.Equal(t, []string{"BSP ERROR: Stream contained token larger (40) than maximum token size (32) for stream. (truncated)"}, out.take(0))
		mv = await(c, func() StreamResult { return c.StreamMoveDown(0, true) })
		assert.Equal(t, 0, mv.Size, "the 0-byte token ends the stream")
		await(c, func() StreamResult { return c.StreamClose(0) })
		c.StreamClose(0)
		c.StreamMoveDown(0, false)
		assert.Equal(t, []string{
			"BSP ERROR: bsp_stream_close: stream 0 is not open on this core (closed already, or never opened) (superstep 0)",
			"BSP ERROR: bsp_stream_move_down: stream 0 is not open on this core (closed already, or never opened) (superstep 0)",
		}, out.take(0))
		c.StreamOpen(-1)
		assert.Equal(t, []string{"BSP ERROR: bsp_stream_open: there is no stream -1 (the host made only stream 0) (superstep 0)"}, out.take(0))
	})
}

// TestStreamOutOfLocalMemory: the buffers come with the first move down;
// without room the board's text, and the call returns 0.
func TestStreamOutOfLocalMemory(t *testing.T) {
	m := streamMachine(t, 1)
	out := recordLines(m)
	data := ints(3 * 1024)
	_, err := m.CreateStream(len(data), 4096, unsafe.Pointer(&data[0]))
	require.NoError(t, err)
	runAgain(t, m, func(c kcore) {
		local := m.Memory().Local(0)
		hog := c.Malloc(local.Size() - 4096 - 8 - 8)
		require.NotNil(t, hog)
		assert.Equal(t, 4096, c.StreamOpen(0).Size)
		mv := await(c, func() StreamResult { return c.StreamMoveDown(0, true) })
		assert.Equal(t, 0, mv.Size, "no room for the preload buffer")
		assert.Equal(t, int32(0), *(*int32)(mv.Buffer), "the token is handed out all the same")
		assert.Equal(t, []string{"BSP ERROR: could not allocate enough memory for stream"}, out.take(0))
		require.Nil(t, c.Free(hog))
		mv = await(c, func() StreamResult { return c.StreamMoveDown(0, false) })
		assert.Equal(t, int32(1024), *(*int32)(mv.Buffer))
		await(c, func() StreamResult { return c.StreamClose(0) })
	})
}

func TestLegacyStreams(t *testing.T) {
	m := streamMachine(t, 2)
	out := recordLines(m)
	data := ints(100)
	up0, err := m.CreateUpStream(0, 200, 20)
	require.NoError(t, err)
	_, err = m.CreateDownStream(unsafe.Pointer(&data[0]), 0, 400, 40)
	require.NoError(t, err)
	_, err = m.CreateDownStream(unsafe.Pointer(&data[0]), 1, 400, 40)
	require.NoError(t, err)
	runAgain(t, m, func(c kcore) {
		if c.Pid() == 1 {
			c.OpenUpStream(0)
			c.OpenDownStream(1)
			c.MoveChunkDown(0, false)
			assert.Equal(t, []string{"BSP ERROR: mixed up and down streams", "BSP ERROR: stream does not exist",
				"BSP ERROR: ebsp_move_chunk_down: this core's stream 0 is not open (superstep 0)"}, out.take(1))
			return
		}
		down := c.OpenDownStream(1)
		assert.Equal(t, 40, down.Size)
		up := c.OpenUpStream(0)
		assert.Equal(t, 20, up.Size)
		c.SetUpChunkSize(0, 8)
		assert.Equal(t, int32(8), *(*int32)(up.Buffer), "the board stores the size in the chunk")
		chunk := up.Buffer
		for {
			mv := await(c, func() StreamResult { return c.MoveChunkDown(1, true) })
			if mv.Size == 0 {
				assert.Nil(t, mv.Buffer)
				break
			}
			in := unsafe.Slice((*int32)(mv.Buffer), 10)
			o := unsafe.Slice((*int32)(chunk), 5)
			for i := range o {
				o[i] = in[2*i] * 10 // every other value, times ten
			}
			next := await(c, func() StreamResult { return c.MoveChunkUp(0, true) })
			assert.Equal(t, 20, next.Size)
			assert.NotEqual(t, chunk, next.Buffer, "prealloc hands out the other buffer")
			chunk = next.Buffer
		}
		c.MoveDownCursor(1, 1)
		c.MoveDownCursor(1, -11)
		assert.Equal(t, []string{"BSP ERROR: tried jumping past bounds of stream", "BSP ERROR: tried jumping past bounds of stream"}, out.take(0))
		c.ResetDownCursor(1)
		mv := await(c, func() StreamResult { return c.MoveChunkDown(1, false) })
		assert.Equal(t, int32(90), *(*int32)(mv.Buffer), "the spare buffer, swapped in: the last chunk again")
		mv = await(c, func() StreamResult { return c.MoveChunkDown(1, false) })
		assert.Equal(t, int32(0), *(*int32)(mv.Buffer), "then the first, after the reset")
		await(c, func() StreamResult { return c.CloseLegacy(0, true) })
		await(c, func() StreamResult { return c.CloseLegacy(1, false) })
		c.CloseLegacy(1, false)
		assert.Equal(t, []string{"BSP ERROR: tried to close closed stream"}, out.take(0))
		assert.Equal(t, 0, m.Memory().Local(0).InUse())
	})
	a := area(up0, 200)
	for k := 0; k < 10; k++ { // raw: 20-byte chunks, one after the other
		for i := 0; i < 5; i++ {
			assert.Equal(t, uint32(10*(10*k+2*i)), binary.LittleEndian.Uint32(a[20*k+4*i:]), "chunk %d value %d", k, i)
		}
	}
}

// TestLegacyUpStreamFull: chunks past the end of an up stream are cut to
// what fits (on the board they ran over the memory after it).
func TestLegacyUpStreamFull(t *testing.T) {
	m := streamMachine(t, 1)
	p, err := m.CreateUpStream(0, 40, 16)
	require.NoError(t, err)
	after := m.Memory().Ext().At(m.Memory().Ext().InUse())
	sentinel := area(after, 8)
	copy(sentinel, "SENTINEL")
	runAgain(t, m, func(c kcore) {
		buf := c.OpenUpStream(0).Buffer
		for k := 0; k < 4; k++ {
			copy(area(buf, 16), fmt.Sprintf("chunk %d.........", k))
			mv := await(c, func() StreamResult { return c.MoveChunkUp(0, false) })
			assert.Equal(t, 16, mv.Size)
			assert.Equal(t, buf, mv.Buffer, "without prealloc the same buffer")
		}
		await(c, func() StreamResult { return c.CloseLegacy(0, true) })
	})
	assert.Equal(t, "chunk 0.........chunk 1.........chunk 2.", string(area(p, 40)))
	assert.Equal(t, "SENTINEL", string(sentinel))
}

// TestStreamSeekCorruptPrevSize is what FuzzStreamCorrupt found: a
// negative size before a token, written by the host, walked a seek back
// out of the area (and the process into a segfault).
func TestStreamSeekCorruptPrevSize(t *testing.T) {
	m := fuzzMachine(t, false)
	out := recordLines(m)
	data := fuzzData(160, 1)
	p, err := m.CreateStream(len(data), 16, unsafe.Pointer(&data[0]))
	if err != nil {
		t.Fatal(err)
	}
	binary.LittleEndian.PutUint32(bytesAt(p, 3*24)[2*24:], uint32(0xfffffff0)) // token 1's size before token 2: -16
	runAgain(t, m, func(c kcore) {
		c.StreamOpen(0)
		await(c, func() StreamResult { return c.StreamSeek(0, 5) })
		await(c, func() StreamResult { return c.StreamSeek(0, -5) })
		assert.Equal(t, []string{"BSP ERROR: bsp_stream_seek: stream 0: the header at byte 48 of its area announces a token of -16 bytes before it, which runs out of the area (superstep 0)"}, out.take(0))
		mv := await(c, func() StreamResult { return c.StreamMoveDown(0, false) })
		assert.Equal(t, data[32:48], bytesAt(mv.Buffer, mv.Size), "after the failed seek the cursor is at token 2")
	})
}

// TestStreamCorruptToken: a token size the host overwrote that runs past
// the area is read as the end of the stream.
func TestStreamCorruptToken(t *testing.T) {
	m := fuzzMachine(t, false)
	out := recordLines(m)
	p, err := m.CreateStream(0, 64, nil)
	if err != nil {
		t.Fatal(err)
	}
	binary.LittleEndian.PutUint32(bytesAt(p, 8)[4:], 64) // a 64-byte token in an 8-byte area
	runAgain(t, m, func(c kcore) {
		c.StreamOpen(0)
		mv := await(c, func() StreamResult { return c.StreamMoveDown(0, true) })
		assert.Equal(t, 0, mv.Size)
		assert.Equal(t, []string{"BSP ERROR: bsp_stream_move_down: stream 0: the header at byte 0 of its area announces a token of 64 bytes, which runs out of the area; read as the end (superstep 0)"}, out.take(0))
	})
}

// TestStreamStrictChecks: with EBSP_CHECKS=strict, what the board let pass
// silently is reported too.
func TestStreamStrictChecks(t *testing.T) {
	m := newTestMachine(t, 1)
	m.CommConfig(CheckStrict, 0)
	out := recordLines(m)
	_, err := m.CreateUpStream(0, 24, 16)
	require.NoError(t, err)
	runAgain(t, m, func(c kcore) {
		c.OpenUpStream(0)
		c.SetUpChunkSize(0, 8)
		await(c, func() StreamResult { return c.MoveChunkUp(0, false) })
		await(c, func() StreamResult { return c.MoveChunkUp(0, false) })
		assert.Equal(t, []string{
			"BSP ERROR: ebsp_set_up_chunk_size: the board's library stores 8 in the first 4 bytes of the chunk of this core's stream 0 and sends the whole chunk of 16 bytes (superstep 0)",
			"BSP ERROR: ebsp_move_chunk_up: a chunk of 16 bytes does not fit in this core's stream 0: 8 bytes of room left (the board wrote past its end) (superstep 0)",
		}, out.take(0))
		await(c, func() StreamResult { return c.CloseLegacy(0, true) })
	})
}
