package ebsp

/*
#include "../../capi/faces.h"
*/
import "C"

import (
	"unsafe"

	"libebsp/engine"
)

// Stream carries out core c's stream call op (enum stream_op, which
// stream.c passes through capi's goStream) on stream id: arg and arg2
// are its int arguments, data its pointer, or small the number below
// 4096 that bsp_stream_move_up was given as its data (passed as nil:
// faces.h, user_pointer_small). The core then waits in C for the
// transfer named in the result.
func Stream(c *engine.Core, op, id, arg, arg2 int, data unsafe.Pointer, small uintptr) engine.StreamResult {
	switch op {
	case C.STREAM_OPEN:
		return c.StreamOpen(id)
	case C.STREAM_CLOSE:
		return c.StreamClose(id)
	case C.STREAM_MOVE_DOWN:
		return c.StreamMoveDown(id, arg != 0)
	case C.STREAM_MOVE_UP:
		if small != 0 {
			return c.StreamMoveUpNumber(id, small, arg, arg2 != 0)
		}
		return c.StreamMoveUp(id, data, arg, arg2 != 0)
	case C.STREAM_SEEK:
		return c.StreamSeek(id, arg)
	case C.LEGACY_OPEN_DOWN:
		return c.OpenDownStream(id)
	case C.LEGACY_OPEN_UP:
		return c.OpenUpStream(id)
	case C.LEGACY_CLOSE_DOWN:
		return c.CloseLegacy(id, false)
	case C.LEGACY_CLOSE_UP:
		return c.CloseLegacy(id, true)
	case C.LEGACY_MOVE_DOWN:
		return c.MoveChunkDown(id, arg != 0)
	case C.LEGACY_MOVE_UP:
		return c.MoveChunkUp(id, arg != 0)
	case C.LEGACY_MOVE_CURSOR:
		return c.MoveDownCursor(id, arg)
	case C.LEGACY_RESET_CURSOR:
		return c.ResetDownCursor(id)
	case C.LEGACY_SET_UP_CHUNK_SIZE:
		return c.SetUpChunkSize(id, arg)
	}
	return engine.StreamResult{}
}
