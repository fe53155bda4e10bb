package engine

import (
	"flag"
	"testing"

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
