package runtime

import (
	"strconv"
	"unsafe"
)

// The deprecated stream calls run on the same engine as bsp_stream_*: a
// stream is opened for one direction, and up streams add the chunk size
// setting and a second buffer handed out for double buffering.

// MoveChunkUp is ebsp_move_chunk_up: it sends the chunk in addr (of the
// size set by SetUpChunkSize) and returns in Move.Buffer the buffer for
// the next chunk: with prealloc the other token buffer, whose previous
// transfer Move.Wait then is; without, addr again once the chunk is sent.
func (c *Core) MoveChunkUp(call string, id int, addr unsafe.Pointer, prealloc bool) (Move, *Error) {
	o, err := c.openStreamFor(call, id, LegacyUp)
	if err != nil {
		return Move{}, err
	}
	double := prealloc && c.ensureSecondBuffer(o)
	mv, err := c.StreamMoveUp(call, id, LegacyUp, addr, o.upChunk, !double)
	if err != nil {
		return Move{}, err
	}
	mv.Buffer = addr
	if double {
		mv.Buffer = o.bufs[0]
		if addr == o.bufs[0] {
			mv.Buffer = o.bufs[1]
		}
	}
	return mv, nil
}

// SetUpChunkSize is ebsp_set_up_chunk_size.
func (c *Core) SetUpChunkSize(call string, id, size int) *Error {
	o, err := c.openStreamFor(call, id, LegacyUp)
	if err != nil {
		return err
	}
	if size <= 0 || size > o.s.tokenSize {
		return c.errorf(call, "chunk size %d for %s; it must be 1..%d, the stream's largest chunk size", size, o.name, o.s.tokenSize)
	}
	o.upChunk = size
	return nil
}

func itoa(v int) string { return strconv.Itoa(v) }
