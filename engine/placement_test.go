package engine

import (
	"encoding/binary"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// splitTransport runs the cores below local in this process, the others
// elsewhere (as an MPI world's rank).
type splitTransport struct {
	Transport
	local int
}

func (s splitTransport) Local(pid int) bool { return pid < s.local }

// A get reply from another process is received into the get's
// destination only when the sync would have written the same bytes there
// (placement.go): the state of a sync's second round, set by hand.
func TestGetReplyPlacedOnlyWhereTheSyncWouldWrite(t *testing.T) {
	m := newTestMachine(t, 4)
	m.CommConfig(CheckBoard, 0)
	m.mu.Lock()
	require.NoError(t, m.startComm())
	m.mu.Unlock()
	m.comm.transport = splitTransport{m.comm.transport, 2}
	f := newFakeDirect(m)
	c := m.cores[0]
	var dst, other [64]int64
	var x int64
	c.comm.gets = []pendingGet{{dst: unsafe.Pointer(&dst[0]), nbytes: 512}, {dst: unsafe.Pointer(&other[0]), nbytes: 8}}
	reply := func(num, n int) []byte {
		h := make([]byte, recHeader)
		binary.LittleEndian.PutUint32(h[0:], uint32(kindGetReply))
		binary.LittleEndian.PutUint32(h[4:], uint32(num))
		binary.LittleEndian.PutUint32(h[12:], uint32(n))
		return h
	}
	place := func(src int, header []byte, apart bool) unsafe.Pointer {
		p := m.Placement(src, 0)
		return p.Record(header, apart)
	}
	here := unsafe.Pointer(&dst[0])

	assert.Equal(t, here, place(2, reply(0, 512), true), "alone")
	assert.Nil(t, place(2, reply(0, 512), false), "in the block")
	assert.Nil(t, place(2, reply(0, 8), true), "not the get's size")
	assert.Nil(t, place(2, reply(5, 512), true), "no such get")
	assert.Nil(t, place(1, reply(0, 512), true), "from this process")

	c.comm.gets[1].dst = unsafe.Pointer(&dst[63])
	assert.Nil(t, place(2, reply(0, 512), true), "another get writes its last word")
	c.comm.gets[1].dst = unsafe.Pointer(&other[0])

	m.cores[1].comm.lent = []memRange{rangeAt(unsafe.Pointer(&dst[10]), 8)}
	assert.Nil(t, place(2, reply(0, 512), true), "a source read in the same round")
	m.cores[1].comm.lent = nil

	c.comm.direct[DirectGet] = int32(c.Superstep() + 1)
	f.gets[0] = []*fakeGet{{src: &x, dst: &other[5]}}
	assert.Equal(t, here, place(2, reply(0, 512), true), "a direct get elsewhere")
	f.gets[0] = []*fakeGet{{src: &x, dst: &other[5]}, {src: &x, dst: &dst[5]}}
	assert.Nil(t, place(2, reply(0, 512), true), "a direct get to the same bytes")
	delete(f.gets, 0)

	m.CommConfig(CheckStrict, 0)
	assert.Nil(t, place(2, reply(0, 512), true), "strict checks")
}
