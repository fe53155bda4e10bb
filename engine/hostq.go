package engine

import (
	"fmt"
	"unsafe"

	"libebsp/emesh"
)

// Host <-> core messages. ebsp_send_down packs messages per core into the
// host's outboxes; each core finds them in its queue from bsp_begin until
// its first bsp_sync (they are delivered to the next ebsp_spmd only).
// ebsp_send_up packs into the core's up arena; after the run the host
// reads them in core pid order, then in the order they were sent, until
// the next ebsp_spmd or bsp_end.

// span is a message recorded as offsets into an arena that may still
// move while it grows; it becomes a message once the arena is settled.
type span struct{ off, tagLen, size int }

func (s span) message(a *buffer) message {
	return message{tag: a.at(s.off), payload: a.at(s.off + s.tagLen), tagLen: s.tagLen, size: s.size}
}

// recordMessage copies tag and payload into a and returns their span.
func recordMessage(a *buffer, tag unsafe.Pointer, tagLen int, payload unsafe.Pointer, size int) (span, error) {
	if err := a.grow(tagLen + size); err != nil {
		return span{}, err
	}
	off := a.used
	data := a.take(tagLen + size)
	copy(data, bytesAt(tag, tagLen))
	copy(data[tagLen:], bytesAt(payload, size))
	return span{off: off, tagLen: tagLen, size: size}, nil
}

// hostState is what a core sent up to the host (ebsp_send_up).
type hostState struct {
	up     buffer // tags and payloads
	upMsgs []span
	sentUp bool // in this superstep: a later bsp_sync is a misuse
}

// hostOutbox holds the messages sent down to one core.
type hostOutbox struct {
	buffer
	msgs []span
}

func (o *hostOutbox) deliver(q *msgQueue) error {
	for _, s := range o.msgs {
		if err := q.push(s.message(&o.buffer)); err != nil {
			return err
		}
	}
	return nil
}

func (o *hostOutbox) clear() {
	o.reset()
	o.msgs = o.msgs[:0]
}

// SendUp is ebsp_send_up: the message goes to the host after the run.
// Sending up and then calling bsp_sync is reported at that sync.
func (c *Core) SendUp(tag, payload unsafe.Pointer, nbytes int) *Error {
	const call = "ebsp_send_up"
	if err := c.checkMessage(call, tag, payload, nbytes, true); err != nil {
		return err
	}
	s, err := recordMessage(&c.comm.up, tag, c.comm.tagsize, payload, nbytes)
	if err != nil {
		return c.errorf(call, "%v", err)
	}
	c.comm.upMsgs = append(c.comm.upMsgs, s)
	c.comm.sentUp = true
	c.needSync() // a bsp_sync after this is a misuse the engine reports
	return nil
}

// SetHostTagsize is the host's ebsp_set_tagsize; it returns the old size.
func (m *Machine) SetHostTagsize(size int) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	old := m.comm.hostTag
	switch {
	case size < 0:
		return old, fmt.Errorf("ebsp_set_tagsize: negative tag size %d", size)
	case m.state == HostRunning:
		return old, fmt.Errorf("ebsp_set_tagsize: called during ebsp_spmd")
	}
	m.comm.hostTag = size
	return old, nil
}

// HostTagsize is the host's ebsp_get_tagsize: the tag size the cores
// ended the last run with, or the one set with ebsp_set_tagsize before.
func (m *Machine) HostTagsize() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.comm.ran {
		return m.comm.endTag
	}
	return m.comm.hostTag
}

// SendDown is ebsp_send_down.
func (m *Machine) SendDown(pid int, tag, payload unsafe.Pointer, nbytes int) error {
	const call = "ebsp_send_down"
	m.mu.Lock()
	defer m.mu.Unlock()
	switch {
	case m.state != HostBegun:
		return fmt.Errorf("%s: call it between bsp_begin and ebsp_spmd (the machine is %s)", call, m.state)
	case pid < 0 || pid >= len(m.cores):
		return fmt.Errorf("%s: core %d does not exist (bsp_begin started cores 0..%d)", call, pid, len(m.cores)-1)
	case nbytes < 0:
		return fmt.Errorf("%s: negative size %d", call, nbytes)
	case tag == nil && m.comm.hostTag > 0:
		return fmt.Errorf("%s: the tag is NULL but the tag size is %d", call, m.comm.hostTag)
	case payload == nil && nbytes > 0:
		return fmt.Errorf("%s: the payload is NULL but nbytes is %d", call, nbytes)
	}
	if bad := emesh.CheckUser(tag, m.comm.hostTag, false); bad != nil {
		return fmt.Errorf("%s: %s", call, bad.Describe("the tag"))
	}
	if bad := emesh.CheckUser(payload, nbytes, false); bad != nil {
		return fmt.Errorf("%s: %s", call, bad.Describe("the payload"))
	}
	if len(m.comm.down) < len(m.cores) {
		m.comm.down = append(m.comm.down, make([]hostOutbox, len(m.cores)-len(m.comm.down))...)
	}
	o := &m.comm.down[pid]
	s, err := recordMessage(&o.buffer, tag, m.comm.hostTag, payload, nbytes)
	if err != nil {
		return fmt.Errorf("%s: %v", call, err)
	}
	o.msgs = append(o.msgs, s)
	return nil
}

// SendDownTagsize is the tag size of the messages ebsp_send_down queues.
func (m *Machine) SendDownTagsize() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.comm.hostTag
}

// HostPeekSize is the payload size of the next message in the host's
// queue; ok is false when it is empty.
func (m *Machine) HostPeekSize() (size int, ok bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	next, ok := m.comm.hostQ.peek()
	return next.size, ok
}

// HostQSize is the host's ebsp_qsize.
func (m *Machine) HostQSize() (packets, bytes int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.comm.hostQ.size()
}

// HostGetTag is the host's ebsp_get_tag: the next message's payload size,
// or -1. A tag buffer that cannot take the tag is reported and not
// written.
func (m *Machine) HostGetTag(tag unsafe.Pointer) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	q := &m.comm.hostQ
	if next, ok := q.peek(); ok && tag != nil {
		if bad := emesh.CheckUser(tag, min(next.tagLen, m.hostTagLocked()), true); bad != nil {
			return next.size, fmt.Errorf("ebsp_get_tag: %s", bad.Describe("the tag"))
		}
	}
	return q.getTag(tag, m.hostTagLocked()), nil
}

// HostMove is the host's ebsp_move. A payload buffer that cannot take the
// payload is reported, and the message stays in the queue.
func (m *Machine) HostMove(payload unsafe.Pointer, room int) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	q := &m.comm.hostQ
	if next, ok := q.peek(); ok && payload != nil {
		if bad := emesh.CheckUser(payload, min(next.size, max(room, 0)), true); bad != nil {
			return fmt.Errorf("ebsp_move: %s", bad.Describe("the payload"))
		}
	}
	q.move(payload, room)
	return nil
}

// HostHPMove is the host's ebsp_hpmove.
func (m *Machine) HostHPMove() (tag, payload unsafe.Pointer, size int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.comm.hostQ.hpmove()
}

func (m *Machine) hostTagLocked() int {
	if m.comm.ran {
		return m.comm.endTag
	}
	return m.comm.hostTag
}
