package engine

import (
	"encoding/binary"
	"unsafe"
)

// BSMP: messages with a tag of the superstep's tag size and a payload of
// any size. A message sent in superstep s is in the receiver's queue in
// superstep s+1 (tag and payload in the receiver's inbox arena, or where
// they lie: a sender's direct log, a transport's kept receive buffer; so
// the pointers bsp_hpmove hands out stay valid until the next sync).

// bsmpState is a core's BSMP state.
type bsmpState struct {
	tagsize int      // tag size of this superstep
	newTag  int      // set in this superstep for the next, or -1
	inbox   buffer   // this superstep's messages (bsp_hpmove points here)
	queue   msgQueue // of messages in inbox
}

// message is a queued message; its bytes live outside the Go heap, and so
// does the message itself (msgQueue), where the C shim reads it as struct
// ebsp_msg (generated from it, cdefs.go).
type message struct {
	tag     unsafe.Pointer `c:"tag"`
	payload unsafe.Pointer `c:"payload"`
	tagLen  int            `c:"tag_len"`
	size    int            `c:"size"`
}

const messageSize = int(unsafe.Sizeof(message{}))

// queueMinBytes is the smallest mapping of a queue's messages: a page, as
// every core of a run has a queue (bufferMinBytes would be 64 MiB of
// address space at 1024 cores, too much for a 32-bit build).
const queueMinBytes = 4096

// QueueState is where a message queue stands: its messages and the
// reader's position. A core's queue keeps it in the core's C table when
// shared (Mirror.Queue), so that bsp_qsize, bsp_get_tag, bsp_move and
// bsp_hpmove run in C without a call into Go (faces/ebsp/comm_api.c; a call into
// Go cost ~60-100 ns per message). C reads it as struct ebsp_msgq
// (generated from it, cdefs.go).
type QueueState struct {
	Msgs     unsafe.Pointer `c:"msgs,struct ebsp_msg *"` // the first message
	N        int32          `c:"n"`                      // messages queued
	Head     int32          `c:"head"`                   // the next one to read
	Bytes    int64          `c:"bytes"`                  // payload bytes queued and not read
	WholeTag int32          `c:"whole_tag"`              // 1: bsp_get_tag copies a message's whole tag (the BSPlib face)
}

// msgQueue is a FIFO of messages with the sum of their payload sizes.
type msgQueue struct {
	store buffer      // the messages, outside the Go heap
	st    *QueueState // shared state, or nil: own
	own   QueueState
}

func (q *msgQueue) state() *QueueState {
	if q.st != nil {
		return q.st
	}
	return &q.own
}

// share moves the queue's state to st (C memory), where it stays.
func (q *msgQueue) share(st *QueueState) {
	*st = *q.state()
	q.st = st
}

func (q *msgQueue) at(i int32) *message {
	return (*message)(unsafe.Add(q.state().Msgs, int(i)*messageSize))
}

// reserve makes room for n more messages.
func (q *msgQueue) reserve(n int) error {
	q.store.minBytes = queueMinBytes
	if err := q.store.grow(n * messageSize); err != nil {
		return err
	}
	q.state().Msgs = q.store.at(0) // the store may have moved
	return nil
}

func (q *msgQueue) push(m message) error {
	if q.store.used+messageSize > len(q.store.mem) {
		if err := q.reserve(1); err != nil {
			return err
		}
	}
	st := q.state()
	q.store.take(messageSize)
	*q.at(st.N) = m
	st.N++
	st.Bytes += int64(m.size)
	return nil
}

// pushLog queues the messages of a direct log of n bytes at log, where
// they stay (engine/direct.go): room for as many as the log could hold is
// made once, then each is one store (a push per message was a fifth of a
// 16-byte send's cost at P=2).
func (q *msgQueue) pushLog(log unsafe.Pointer, n int) error {
	if err := q.reserve(n / int(directMessageHeader)); err != nil {
		return err
	}
	st := q.state()
	count, bytes := st.N, st.Bytes
	for at := 0; at < n; {
		h := (*directMessage)(unsafe.Add(log, at))
		tag := unsafe.Add(log, at+int(directMessageHeader))
		*(*message)(unsafe.Add(st.Msgs, int(count)*messageSize)) =
			message{tag: tag, payload: unsafe.Add(tag, int(h.tagLen)), tagLen: int(h.tagLen), size: int(h.size)}
		count++
		bytes += int64(h.size)
		at += int(directMessageHeader) + (int(h.tagLen+h.size)+7)&^7
	}
	q.store.take(int(count-st.N) * messageSize)
	st.N, st.Bytes = count, bytes
	return nil
}

// pushRecords queues the n message records packed in mem (memory outside
// the Go heap that outlives the queue's messages: Block.ViewKept).
func (q *msgQueue) pushRecords(mem []byte, n int) error {
	if err := q.reserve(n); err != nil {
		return err
	}
	st := q.state()
	count, bytes := st.N, st.Bytes
	for len(mem) > 0 {
		tagLen := int(binary.LittleEndian.Uint32(mem[4:]))
		size := int(binary.LittleEndian.Uint32(mem[12:]))
		// past the header: for an empty message (no tag, no payload)
		// the end of the record, which nothing reads
		tag := unsafe.Add(unsafe.Pointer(unsafe.SliceData(mem)), recHeader)
		*(*message)(unsafe.Add(st.Msgs, int(count)*messageSize)) =
			message{tag: tag, payload: unsafe.Add(tag, tagLen), tagLen: tagLen, size: size - tagLen}
		count++
		bytes += int64(size - tagLen)
		mem = mem[recordSize(size):]
	}
	q.store.take(int(count-st.N) * messageSize)
	st.N, st.Bytes = count, bytes
	return nil
}

func (q *msgQueue) clear() {
	st := q.state()
	st.N, st.Head, st.Bytes = 0, 0, 0
	q.store.reset()
}

// free returns the store's memory; the queue is empty and its own again.
func (q *msgQueue) free() {
	q.store.free()
	q.st, q.own = nil, QueueState{}
}

func (q *msgQueue) peek() (message, bool) {
	st := q.state()
	if st.Head == st.N {
		return message{}, false
	}
	return *q.at(st.Head), true
}

func (q *msgQueue) pop() {
	st := q.state()
	st.Bytes -= int64(q.at(st.Head).size)
	st.Head++
}

// getTag copies the next message's tag (at most room bytes) to dst; it
// returns the payload size, or -1 when the queue is empty.
func (q *msgQueue) getTag(dst unsafe.Pointer, room int) int {
	m, ok := q.peek()
	if !ok {
		return -1
	}
	if dst != nil {
		n := min(m.tagLen, room)
		copy(bytesAt(dst, n), bytesAt(m.tag, n))
	}
	return m.size
}

// move pops the next message, copying at most room payload bytes to dst.
func (q *msgQueue) move(dst unsafe.Pointer, room int) {
	m, ok := q.peek()
	if !ok {
		return
	}
	q.pop()
	if n := min(m.size, max(room, 0)); n > 0 && dst != nil {
		copy(bytesAt(dst, n), bytesAt(m.payload, n))
	}
}

// hpmove pops the next message and returns pointers to it, or size -1.
func (q *msgQueue) hpmove() (tag, payload unsafe.Pointer, size int) {
	m, ok := q.peek()
	if !ok {
		return nil, nil, -1
	}
	q.pop()
	return m.tag, m.payload, m.size
}

// size is (packets, accumulated payload bytes) still queued.
func (q *msgQueue) size() (int, int) {
	st := q.state()
	return int(st.N - st.Head), int(st.Bytes)
}

// SetTagsize is bsp_set_tagsize: size applies from the next superstep; it
// returns the tag size in force now.
func (c *Core) SetTagsize(size int) (int, *Error) {
	if size < 0 {
		return c.comm.tagsize, c.errorf("bsp_set_tagsize", "negative tag size %d", size)
	}
	c.comm.newTag = size
	c.communicated()
	return c.comm.tagsize, nil
}

// Tagsize is ebsp_get_tagsize on a core.
func (c *Core) Tagsize() int { return c.comm.tagsize }

// Send is bsp_send: tag and payload are copied now, delivered at the sync.
func (c *Core) Send(pid int, tag, payload unsafe.Pointer, nbytes int) *Error {
	return c.send(pid, tag, payload, nbytes, true)
}

// send is Send; checkMemory is false for a message in the request log, the
// library's own copy.
func (c *Core) send(pid int, tag, payload unsafe.Pointer, nbytes int, checkMemory bool) *Error {
	const call = "bsp_send"
	if pid < 0 || pid >= len(c.m.cores) {
		return c.errorf(call, "core %d does not exist (this run has cores 0..%d)", pid, len(c.m.cores)-1)
	}
	tagLen := c.comm.tagsize
	if err := c.checkMessage(call, tag, payload, nbytes, checkMemory); err != nil {
		return err
	}
	data, err := c.pack(call, laneData, pid, kindMessage, uint32(tagLen), 0, tagLen+nbytes)
	if err != nil {
		return err
	}
	copy(data, bytesAt(tag, tagLen))
	copy(data[tagLen:], bytesAt(payload, nbytes))
	if c.m.stats.on {
		c.countSent(pid, 1, len(data), true)
	}
	return nil
}

// kindMessage is a message record (laneData): a is the tag's length, the
// payload the tag then the message's payload.
const kindMessage = kindGetReply + 1

func init() { registerKind(kindMessage, (*Core).receiveMessage) }

// growInbox makes room for this superstep's incoming messages (count, and
// bytes) before any is queued: the queue points into the inbox, which must
// not move.
func (c *Core) growInbox(count, bytes int) *Error {
	if count == 0 {
		return nil
	}
	err := c.comm.inbox.grow(bytes)
	if err == nil {
		err = c.comm.queue.reserve(count)
	}
	if err != nil {
		return c.errorf("bsp_sync", "%v", err)
	}
	return nil
}

// receiveMessage copies one message (tag then payload) into the inbox and
// queues it.
func (c *Core) receiveMessage(_ int, r record) {
	cs := &c.comm
	tagLen := int(r.a)
	off := cs.inbox.used
	copy(cs.inbox.take(len(r.data)), r.data)
	err := cs.queue.push(message{
		tag:     cs.inbox.at(off),
		payload: cs.inbox.at(off + tagLen),
		tagLen:  tagLen,
		size:    len(r.data) - tagLen,
	})
	if err != nil && cs.err == nil {
		cs.err = c.errorf("bsp_sync", "%v", err)
	}
	if c.m.stats.on {
		c.countRecv(1, len(r.data), true)
	}
}

// queueMessagesInPlace queues the messages of a kept block (only message
// records) where they lie, as pushLog a direct log's: no copy into the
// inbox and no call per message (a 2-rank superstep of 16-byte sends
// spent a quarter of its time on them).
func (c *Core) queueMessagesInPlace(b *Block) {
	cs := &c.comm
	if err := cs.queue.pushRecords(b.mem[:b.used], b.count[kindMessage]); err != nil && cs.err == nil {
		cs.err = c.errorf("bsp_sync", "%v", err)
	}
}

func (c *Core) clearQueue() {
	c.comm.queue.clear()
	c.comm.inbox.reset()
}

// checkMessage checks a message's arguments before the engine copies its
// tag and payload (with checkMemory, that they can be read): at every
// check level, as the copy would fault inside Go code.
func (c *Core) checkMessage(call string, tag, payload unsafe.Pointer, nbytes int, checkMemory bool) *Error {
	if nbytes < 0 {
		return c.errorf(call, "negative size %d", nbytes)
	}
	if tag == nil && c.comm.tagsize > 0 {
		return c.errorf(call, "the tag is NULL but the tag size is %d", c.comm.tagsize)
	}
	if !checkMemory {
		return nil
	}
	if err := c.checkBuffer(call, "the tag", tag, c.comm.tagsize, false); err != nil {
		return err
	}
	return c.checkBuffer(call, "the payload", payload, nbytes, false)
}
