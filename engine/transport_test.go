package engine

import (
	"encoding/binary"
	"flag"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The transport alone, and every layer above it over a transport that
// copies blocks between cores as a message-passing one (MPI) would:
// `go test ./runtime -transport=copy` runs the engine's tests over it.

var transportFlag = flag.String("transport", "shared", "transport of the test machines: shared or copy")

// testTransport is what newTestMachine installs.
func testTransport(n int) Transport {
	if *transportFlag == "copy" {
		return NewCopyingTransport(n)
	}
	return newSharedMemory(n)
}

func TestBlockKeepsRecordsInOrderAndCountsKinds(t *testing.T) {
	blk := newBlock()
	for i, n := range []int{0, 1, 7, 8, 9, 300} {
		data, err := blk.add(Kind(1+i%2), uint32(i), uint32(100+i), n)
		require.NoError(t, err)
		for j := range data {
			data[j] = byte(i)
		}
	}
	var got []record
	blk.each(func(r record) { got = append(got, r) })
	require.Len(t, got, 6)
	for i, n := range []int{0, 1, 7, 8, 9, 300} {
		assert.Equal(t, Kind(1+i%2), got[i].kind)
		assert.Equal(t, uint32(i), got[i].a)
		assert.Equal(t, uint32(100+i), got[i].b)
		require.Len(t, got[i].data, n)
		for _, v := range got[i].data {
			assert.Equal(t, byte(i), v)
		}
	}
	assert.Equal(t, 3, blk.count[1])
	assert.Equal(t, 0+7+9, blk.bytes[1])
	assert.Equal(t, 1+8+300, blk.bytes[2])
	blk.clear()
	assert.Zero(t, blk.used)
	assert.Zero(t, blk.count[1])
}

// Both transports deliver what each source packed for each destination,
// in packing order, and nothing after Done and Reset.
func TestTransportsDeliverPerSourceInOrder(t *testing.T) {
	for name, make := range map[string]func(int) Transport{"shared": newSharedMemory, "copy": NewCopyingTransport} {
		t.Run(name, func(t *testing.T) {
			const n = 3
			tr := make(n)
			for src := range n {
				for dst := range n {
					for i := range src + 1 {
						data, err := tr.Out(laneData, src, dst).add(1, uint32(src), uint32(i), 4)
						require.NoError(t, err)
						copy(data, []byte{byte(src), byte(dst), byte(i), 9})
					}
				}
				tr.Post(laneData, src)
			}
			for dst := range n {
				for src := range n {
					blk := tr.In(laneData, src, dst)
					require.NotNil(t, blk)
					i := 0
					blk.each(func(r record) {
						assert.Equal(t, []byte{byte(src), byte(dst), byte(i), 9}, r.data)
						assert.Equal(t, uint32(i), r.b)
						i++
					})
					assert.Equal(t, src+1, i, "records from %d to %d", src, dst)
				}
				tr.Done(laneData, dst)
			}
			for pid := range n {
				tr.Reset(pid)
			}
			for dst := range n {
				for src := range n {
					if blk := tr.In(laneData, src, dst); blk != nil {
						assert.Zero(t, blk.used)
					}
				}
			}
		})
	}
}

// A kept view of message records (memory outside the Go heap, as a
// transport's receive buffer) is queued where it lies: each message's tag
// and payload point into the view, in packing order, with their sizes.
func TestKeptMessagesQueuedInPlace(t *testing.T) {
	var packed buffer // off the Go heap, as mpi.c's receive buffers
	defer packed.free()
	require.NoError(t, packed.grow(4096))
	msgs := [][2]string{{"tg", "payload one"}, {"", "x"}, {"tag!", ""}, {"ab", "a longer payload, 32 bytes long."}}
	for i, m := range msgs {
		n := len(m[0]) + len(m[1])
		rec := packed.take(recordSize(n))
		binary.LittleEndian.PutUint32(rec[0:], uint32(kindMessage))
		binary.LittleEndian.PutUint32(rec[4:], uint32(len(m[0])))
		binary.LittleEndian.PutUint32(rec[8:], uint32(i))
		binary.LittleEndian.PutUint32(rec[12:], uint32(n))
		copy(rec[recHeader:], m[0]+m[1])
	}
	view := packed.mem[:packed.used]
	blk := newBlock()
	require.NoError(t, blk.ViewKept(view))
	require.True(t, blk.kept)

	var q msgQueue
	defer q.free()
	require.NoError(t, q.pushRecords(blk.mem[:blk.used], blk.count[kindMessage]))
	st := q.state()
	require.EqualValues(t, len(msgs), st.N)
	total := 0
	for i, m := range msgs {
		got := q.at(int32(i))
		assert.Equal(t, len(m[0]), got.tagLen)
		assert.Equal(t, len(m[1]), got.size)
		assert.Equal(t, m[0], string(unsafe.Slice((*byte)(got.tag), got.tagLen)))
		assert.Equal(t, m[1], string(unsafe.Slice((*byte)(got.payload), got.size)))
		inView := uintptr(got.tag) >= uintptr(unsafe.Pointer(&view[0])) && uintptr(got.tag) < uintptr(unsafe.Pointer(&view[0]))+uintptr(len(view))
		assert.True(t, inView, "message %d was copied", i)
		total += len(m[1])
	}
	assert.EqualValues(t, total, st.Bytes)

	blk.Clear()
	assert.False(t, blk.kept)
	require.NoError(t, blk.View(view))
	assert.False(t, blk.kept, "a plain view is not kept")
}

// A record whose payload is a reference (a get reply from another
// process, serveGet) travels as its header and the bytes where they lie,
// between the runs of records around it, in packing order.
func TestBlockReferencesTravelApart(t *testing.T) {
	var source buffer // off the Go heap, as a registered variable
	defer source.free()
	require.NoError(t, source.grow(4096))
	payload := source.take(4096)
	for i := range payload {
		payload[i] = byte(i)
	}
	blk := newBlock()
	small, err := blk.add(kindGetReply, 1, 0, 3)
	require.NoError(t, err)
	copy(small, "abc")
	require.NoError(t, blk.addRef(kindGetReply, 2, 0, unsafe.Pointer(&payload[0]), len(payload)))
	_, err = blk.add(kindGetReply, 3, 0, 8)
	require.NoError(t, err)
	require.Equal(t, 1, blk.Refs())
	assert.Equal(t, 3, blk.count[kindGetReply])
	assert.Equal(t, 3+4096+8, blk.bytes[kindGetReply])

	var runs, headers [][]byte
	blk.Pieces(func(run, header, data []byte) {
		if header == nil {
			runs = append(runs, run)
			return
		}
		headers = append(headers, header)
		assert.Equal(t, unsafe.Pointer(&payload[0]), unsafe.Pointer(&data[0]), "the payload was copied")
		assert.Len(t, data, len(payload))
	})
	require.Len(t, runs, 2)
	require.Len(t, headers, 1)
	assert.Equal(t, recordSize(3), len(runs[0]))
	assert.Equal(t, recordSize(8), len(runs[1]))
	assert.Equal(t, uint32(kindGetReply), binary.LittleEndian.Uint32(headers[0][0:]))
	assert.Equal(t, uint32(2), binary.LittleEndian.Uint32(headers[0][4:]))
	assert.Equal(t, uint32(len(payload)), binary.LittleEndian.Uint32(headers[0][12:]))
	assert.Equal(t, uint32(3), binary.LittleEndian.Uint32(runs[1][4:]))

	blk.clear()
	assert.Zero(t, blk.Refs())
}
