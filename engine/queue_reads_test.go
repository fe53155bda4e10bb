package engine

import (
	"math"
	"unsafe"
)

// bsp_qsize, bsp_get_tag, bsp_move and bsp_hpmove for the engine's tests:
// the library answers them in C, reading the queue where the engine keeps
// it (faces/ebsp/comm_api.c, struct ebsp_msgq); these read it with the host
// queue's reads (hostq.go), so that the tests and the fuzzer can check
// what the engine queued.

// QSize is bsp_qsize.
func (c *Core) QSize() (packets, bytes int) { return c.comm.queue.size() }

// GetTag is bsp_get_tag: it returns the next message's payload size or -1.
// At most the current tag size is copied (a message sent before a tag size
// change carries its old, possibly longer, tag). The BSPlib face copies
// the whole tag: BSPlib's messages keep the tag size they were sent with
// (standardTagRoom).
func (c *Core) GetTag(tag unsafe.Pointer) int {
	return c.comm.queue.getTag(tag, c.standardTagRoom(c.comm.tagsize))
}

// Move is bsp_move: the payload is cut short to room bytes.
func (c *Core) Move(payload unsafe.Pointer, room int) { c.comm.queue.move(payload, room) }

// HPMove is bsp_hpmove.
func (c *Core) HPMove() (tag, payload unsafe.Pointer, size int) { return c.comm.queue.hpmove() }

// standardTagRoom is how many tag bytes bsp_get_tag copies: the tag size in
// force for the EBSP face; the message's own tag for the BSPlib face,
// whose messages keep the tag size of the superstep that sent them (a
// change made in that superstep applies to messages sent after the sync).
func (c *Core) standardTagRoom(inForce int) int {
	if c.m.face.WholeTag {
		return math.MaxInt
	}
	return inForce
}
