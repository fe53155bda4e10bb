package engine

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Regression: every (source, destination) pair has its own packed block;
// they used to be 64 KiB mappings each, so an all-to-all on 1024 cores
// touched a page in a million mappings (4.7 GB RSS, 20 s of page faults
// in ctests/stress1024). Blocks now start small, from the PutWriter.
func TestAllToAllBlocksStaySmall(t *testing.T) {
	const n = 64
	m := newTestMachine(t, n)
	m.UseTransport(newSharedMemory) // whose blocks it measures
	inbox := make([][n]int64, n)
	require.Nil(t, spmd(t, m, func(k kcore) {
		me := &inbox[k.Pid()]
		k.must(k.PushReg(ptr(me), 8*n))
		k.Sync()
		for dst := range n {
			v := int64(k.Pid()*1000 + dst)
			k.must(k.Put(dst, ptr(&v), ptr(me), 8*k.Pid(), 8))
		}
		k.Sync()
	}))
	reserved := 0
	for pid := range n {
		for src := range n {
			assert.Equal(t, int64(src*1000+pid), inbox[pid][src])
		}
		for _, blk := range m.comm.transport.(*sharedMemory).out[pid][laneData] {
			if blk != nil {
				reserved += len(blk.mem)
			}
		}
	}
	// one 24-byte record per pair: a few hundred bytes per block at most
	assert.LessOrEqual(t, reserved, n*n*256, "bytes reserved for packed blocks")
}
