package runtime

import (
	"encoding/binary"
	"math"
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

// await stands for the C side of a stream call: wait for the transfer.
func await(c kcore, mv Move) Move {
	if mv.Wait != 0 {
		c.DMA().Wait(mv.Wait)
	}
	return mv
}

func TestStreamCreateLayout(t *testing.T) {
	m := newTestMachine(t, 1)
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
	assert.Equal(t, 2, m.Streams(), "ids in creation order")

	_, err = m.CreateStream(100, 15, nil)
	assert.EqualError(t, err, "bsp_stream_create: token size 15 is below the minimum of 16 bytes")
	_, err = m.CreateStream(64<<20, 1024, nil)
	assert.ErrorContains(t, err, "bsp_stream_create: no room for")
	n, err := m.CreateDownStream(unsafe.Pointer(&data[0]), 0, 40, 8)
	require.NoError(t, err)
	assert.Equal(t, 0, n, "first deprecated stream of core 0")
	_, err = m.CreateUpStream(1, 40, 8)
	assert.EqualError(t, err, "ebsp_create_up_stream: pid 1 out of range; bsp_begin started cores 0..0")
}

// TestStreamDoubleBuffered streams 64 KiB (twice the local memory) through
// each core in 4 KiB tokens with preload, and checks every value.
func TestStreamDoubleBuffered(t *testing.T) {
	const count, tokenBytes = 16384, 4096
	m := newTestMachine(t, 2)
	data := ints(count)
	for range 2 {
		_, err := m.CreateStream(len(data), tokenBytes, unsafe.Pointer(&data[0]))
		require.NoError(t, err)
	}
	runAgain(t, m, func(c kcore) {
		mv, err := c.StreamOpen("bsp_stream_open", c.Pid(), CurrentStreams)
		require.Nil(t, err)
		assert.Equal(t, tokenBytes, mv.Size)
		next, buffers := 0, map[unsafe.Pointer]bool{}
		for {
			mv, err := c.StreamMoveDown("bsp_stream_move_down", c.Pid(), CurrentStreams, true)
			require.Nil(t, err)
			if await(c, mv).Size == 0 {
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
		assert.Equal(t, 2*tokenBytes, m.Memory().Local(c.Pid()).InUse())
		wait, err := c.StreamClose("bsp_stream_close", c.Pid(), CurrentStreams)
		require.Nil(t, err)
		c.DMA().Wait(wait)
		c.StreamRelease(c.Pid(), CurrentStreams)
		assert.Equal(t, 0, m.Memory().Local(c.Pid()).InUse(), "close frees the token buffers")
	})
}

// TestStreamUpThenDown: core 0 writes a stream up in one run; core 1 reads
// it down in the next; the host reads the chain in place.
func TestStreamUpThenDown(t *testing.T) {
	m := newTestMachine(t, 2)
	p, err := m.CreateStream(5*32, 32, nil)
	require.NoError(t, err)
	runAgain(t, m, func(c kcore) {
		if c.Pid() != 0 {
			return
		}
		_, err := c.StreamOpen("bsp_stream_open", 0, CurrentStreams)
		require.Nil(t, err)
		bufs := [2]unsafe.Pointer{c.Malloc(32), c.Malloc(32)}
		for i := 0; i < 5; i++ {
			b := unsafe.Slice((*int32)(bufs[i%2]), 8)
			for j := range b {
				b[j] = int32(100*i + j)
			}
			size := 32
			if i == 4 {
				size = 12 // a short last token
			}
			mv, err := c.StreamMoveUp("bsp_stream_move_up", 0, CurrentStreams, bufs[i%2], size, false)
			require.Nil(t, err)
			assert.Equal(t, size, mv.Size)
			await(c, mv)
		}
		wait, err := c.StreamClose("bsp_stream_close", 0, CurrentStreams)
		require.Nil(t, err)
		c.DMA().Wait(wait)
		c.StreamRelease(0, CurrentStreams)
	})
	a := area(p, 200)
	assert.Equal(t, [2]int32{0, 32}, header(a, 0))
	assert.Equal(t, [2]int32{32, 12}, header(a, 4*40))
	assert.Equal(t, [2]int32{12, 0}, header(a, 4*40+8+12))
	runAgain(t, m, func(c kcore) {
		if c.Pid() != 1 {
			return
		}
		_, err := c.StreamOpen("bsp_stream_open", 0, CurrentStreams)
		require.Nil(t, err)
		var got []int32
		for {
			mv, err := c.StreamMoveDown("bsp_stream_move_down", 0, CurrentStreams, false)
			require.Nil(t, err)
			if await(c, mv).Size == 0 {
				break
			}
			got = append(got, unsafe.Slice((*int32)(mv.Buffer), mv.Size/4)...)
		}
		assert.Len(t, got, 4*8+3)
		assert.Equal(t, []int32{400, 401, 402}, got[32:])
	})
}

func TestStreamSeek(t *testing.T) {
	m := newTestMachine(t, 1)
	data := ints(10 * 4) // ten tokens of 16 bytes: token k starts with 4k
	_, err := m.CreateStream(len(data), 16, unsafe.Pointer(&data[0]))
	require.NoError(t, err)
	runAgain(t, m, func(c kcore) {
		_, err := c.StreamOpen("bsp_stream_open", 0, CurrentStreams)
		require.Nil(t, err)
		first := func(preload bool) int32 {
			mv, err := c.StreamMoveDown("bsp_stream_move_down", 0, CurrentStreams, preload)
			require.Nil(t, err)
			if await(c, mv).Size == 0 {
				return -1
			}
			return *(*int32)(mv.Buffer) / 4
		}
		seek := func(delta int) { require.Nil(t, c.StreamSeek("bsp_stream_seek", 0, CurrentStreams, delta)) }
		assert.Equal(t, int32(0), first(true))
		seek(3) // the preloaded token 1 is dropped
		assert.Equal(t, int32(4), first(true))
		seek(-2)
		assert.Equal(t, int32(3), first(false))
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
	})
}

// TestStreamMisuse checks each misuse gives its message and a failure
// value, and leaves the stream usable.
func TestStreamMisuse(t *testing.T) {
	m := newTestMachine(t, 2)
	data := ints(64)
	_, err := m.CreateStream(len(data), 64, unsafe.Pointer(&data[0]))
	require.NoError(t, err)
	_, err = m.CreateStream(40, 32, nil)
	require.NoError(t, err)
	runAgain(t, m, func(c kcore) {
		msg := func(err *Error) string {
			require.NotNil(t, err)
			assert.Equal(t, c.Pid(), err.Pid)
			return err.Error()
		}
		if c.Pid() == 1 {
			_, err := c.StreamOpen("bsp_stream_open", 1, CurrentStreams)
			require.Nil(t, err)
			c.Sync()
			c.Sync()
			return
		}
		_, err := c.StreamOpen("bsp_stream_open", 2, CurrentStreams)
		assert.Equal(t, "BSP ERROR: bsp_stream_open: there is no stream 2 (the host made streams 0..1) (superstep 0)", msg(err))
		c.Sync()
		_, err = c.StreamOpen("bsp_stream_open", 1, CurrentStreams)
		assert.Equal(t, "BSP ERROR: bsp_stream_open: stream 1 is already open on core 01; a stream is open on one core at a time (superstep 1)", msg(err))
		_, err = c.StreamOpen("bsp_stream_open", 0, CurrentStreams)
		require.Nil(t, err)
		_, err = c.StreamOpen("bsp_stream_open", 0, CurrentStreams)
		assert.Equal(t, "BSP ERROR: bsp_stream_open: stream 0 is already open on this core (superstep 1)", msg(err))
		await(c, func() Move {
			mv, err := c.StreamMoveDown("bsp_stream_move_down", 0, CurrentStreams, true)
			require.Nil(t, err)
			return mv
		}())
		_, err = c.StreamMoveUp("bsp_stream_move_up", 0, CurrentStreams, unsafe.Pointer(&data[0]), 16, true)
		assert.Equal(t, "BSP ERROR: bsp_stream_move_up: stream 0 is being moved down; moving up needs it closed and opened again (superstep 1)", msg(err))
		_, err = c.StreamMoveDown("bsp_stream_move_down", 1, CurrentStreams, false)
		assert.Equal(t, "BSP ERROR: bsp_stream_move_down: stream 1 is open on core 01, not on this core (superstep 1)", msg(err))
		wait, err := c.StreamClose("bsp_stream_close", 0, CurrentStreams)
		require.Nil(t, err)
		c.DMA().Wait(wait)
		c.StreamRelease(0, CurrentStreams)
		_, err = c.StreamClose("bsp_stream_close", 0, CurrentStreams)
		assert.Equal(t, "BSP ERROR: bsp_stream_close: stream 0 is not open (closed already, or never opened) (superstep 1)", msg(err))
		c.Sync()
		// core 1 has let go of stream 1 by now? no: it holds it until the run ends
		_, err = c.StreamOpen("bsp_stream_open", 0, CurrentStreams)
		require.Nil(t, err)
		mv, err := c.StreamMoveUp("bsp_stream_move_up", 0, CurrentStreams, unsafe.Pointer(&data[0]), 64, true)
		require.Nil(t, err)
		await(c, mv)
		_, err = c.StreamMoveUp("bsp_stream_move_up", 0, CurrentStreams, unsafe.Pointer(&data[0]), 65, true)
		assert.Equal(t, "BSP ERROR: bsp_stream_move_up: token of 65 bytes is larger than the token size of stream 0 (64 bytes) (superstep 2)", msg(err))
		for i := 0; i < 3; i++ {
			await(c, func() Move {
				mv, err := c.StreamMoveUp("bsp_stream_move_up", 0, CurrentStreams, unsafe.Pointer(&data[0]), 64, true)
				require.Nil(t, err)
				return mv
			}())
		}
		// 256 data bytes + 5 headers = 296 bytes; 4 tokens of 64 used 4*72 = 288
		_, err = c.StreamMoveUp("bsp_stream_move_up", 0, CurrentStreams, unsafe.Pointer(&data[0]), 16, true)
		assert.Equal(t, "BSP ERROR: bsp_stream_move_up: token of 16 bytes does not fit in stream 0: 0 bytes of room left (superstep 2)", msg(err))
		assert.Equal(t, "BSP ERROR: bsp_stream_seek: stream 0 is being moved up; seeking is for moving down (superstep 2)",
			msg(c.StreamSeek("bsp_stream_seek", 0, CurrentStreams, 1)))
	})
	runAgain(t, m, func(c kcore) {
		_, err := c.StreamOpen("bsp_stream_open", c.Pid(), CurrentStreams)
		assert.Nil(t, err, "the end of a run releases streams left open")
	})
}

func TestLegacyStreams(t *testing.T) {
	m := newTestMachine(t, 2)
	data := ints(100)
	up0, err := m.CreateUpStream(0, 400, 40)
	require.NoError(t, err)
	n, err := m.CreateDownStream(unsafe.Pointer(&data[0]), 0, 400, 40)
	require.NoError(t, err)
	assert.Equal(t, 1, n, "core 0's second stream")
	n, err = m.CreateDownStream(unsafe.Pointer(&data[0]), 1, 400, 40)
	require.NoError(t, err)
	assert.Equal(t, 0, n, "core 1's first stream")
	runAgain(t, m, func(c kcore) {
		if c.Pid() == 1 {
			_, err := c.StreamOpen("ebsp_open_up_stream", 0, LegacyUp)
			require.NotNil(t, err)
			assert.Equal(t, "BSP ERROR: ebsp_open_up_stream: this core's stream 0 is a down stream, not an up stream; up and down streams cannot be mixed (superstep 0)", err.Error())
			_, err = c.StreamOpen("ebsp_open_down_stream", 1, LegacyDown)
			assert.Equal(t, "BSP ERROR: ebsp_open_down_stream: there is no stream 1 for this core (the host made only stream 0 for it) (superstep 0)", err.Error())
			return
		}
		down, err := c.StreamOpen("ebsp_open_down_stream", 1, LegacyDown)
		require.Nil(t, err)
		assert.Equal(t, 40, down.Size)
		up, err := c.StreamOpen("ebsp_open_up_stream", 0, LegacyUp)
		require.Nil(t, err)
		require.Nil(t, c.SetUpChunkSize("ebsp_set_up_chunk_size", 0, 20))
		out := up.Buffer
		for {
			mv, err := c.StreamMoveDown("ebsp_move_chunk_down", 1, LegacyDown, true)
			require.Nil(t, err)
			if await(c, mv).Size == 0 {
				break
			}
			in := unsafe.Slice((*int32)(mv.Buffer), 10)
			o := unsafe.Slice((*int32)(out), 5)
			for i := range o {
				o[i] = in[2*i] * 10 // every other value, times ten
			}
			next, err := c.MoveChunkUp("ebsp_move_chunk_up", 0, out, true)
			require.Nil(t, err)
			assert.NotEqual(t, out, next.Buffer, "prealloc hands out the other buffer")
			out = await(c, next).Buffer
		}
		require.Nil(t, c.StreamSeek("ebsp_reset_down_cursor", 1, LegacyDown, math.MinInt32))
		mv, err := c.StreamMoveDown("ebsp_move_chunk_down", 1, LegacyDown, false)
		require.Nil(t, err)
		assert.Equal(t, int32(0), *(*int32)(await(c, mv).Buffer))
		assert.NotNil(t, c.SetUpChunkSize("ebsp_set_up_chunk_size", 0, 41))
		for _, id := range []int{0, 1} {
			api := []StreamAPI{LegacyUp, LegacyDown}[id]
			wait, err := c.StreamClose("close", id, api)
			require.Nil(t, err)
			c.DMA().Wait(wait)
			c.StreamRelease(id, api)
		}
	})
	a := area(up0, 400)
	at := 0
	for k := 0; k < 10; k++ {
		require.Equal(t, int32(20), header(a, at)[1], "chunk %d", k)
		for i := 0; i < 5; i++ {
			assert.Equal(t, uint32(10*(10*k+2*i)), binary.LittleEndian.Uint32(a[at+8+4*i:]))
		}
		at += 28
	}
	assert.Equal(t, [2]int32{20, 0}, header(a, at))
}
