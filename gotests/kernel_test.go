package gotests

import (
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Per-core results of the Go kernels; a registered kernel shares the host
// process's globals, so it indexes them by pid.
var (
	seenPid    [1024]atomic.Int32
	seenProcs  atomic.Int32
	supersteps [1024]atomic.Int32
	hostSyncs  atomic.Int32
)

func goKernel() int {
	lib.BspBegin(0)
	pid := lib.BspPid()
	seenPid[pid].Store(pid + 1)
	seenProcs.Store(lib.BspNprocs())
	for i := 0; i < 5; i++ {
		lib.BspSync()
		supersteps[pid].Add(1)
	}
	lib.EbspBarrier()
	lib.EbspHostSync()
	lib.BspEnd()
	return 0
}

func TestGoKernelOn16Cores(t *testing.T) {
	loadLib(t)
	onHostSync := callback("onHostSync", func() { hostSyncs.Add(1) })
	lib.EbspSetSyncCallback(onHostSync)
	defer lib.EbspSetSyncCallback(0)
	for i := range seenPid {
		seenPid[i].Store(0)
		supersteps[i].Store(0)
	}
	hostSyncs.Store(0)

	require.Equal(t, int32(0), lib.BspNprocs(), "bsp_nprocs is 0 before bsp_init, as on the board")
	ok := runKernel(t, "go-kernel", callback("goKernel", goKernel), 16)
	require.Equal(t, int32(1), ok)
	assert.Equal(t, int32(16), seenProcs.Load())
	for pid := 0; pid < 16; pid++ {
		assert.Equal(t, int32(pid+1), seenPid[pid].Load(), "pid %d ran", pid)
		assert.Equal(t, int32(5), supersteps[pid].Load(), "pid %d supersteps", pid)
	}
	assert.Equal(t, int32(0), seenPid[16].Load(), "no 17th core")
	assert.Equal(t, int32(1), hostSyncs.Load(), "one host sync callback")
}

func TestHostCallsOutsideARun(t *testing.T) {
	loadLib(t)
	assert.Equal(t, int32(-1), lib.BspPid(), "the host is no core")
	assert.Equal(t, int32(0), lib.EbspSpmd(), "ebsp_spmd before bsp_begin fails")
	assert.Equal(t, int32(0), lib.BspInit("no-such-kernel.elf", 0, 0))
	// host_bsp.h: removing a name that has no registration returns 0
	assert.Equal(t, int32(0), lib.EbspRegisterKernel("never-registered", 0))
	// a number below 4096 is never a function: refused, with a line on stderr
	assert.Equal(t, int32(0), lib.EbspRegisterKernel("briefly", 1))
	// nor is an address without code (issue 33: every core would jump there)
	assert.Equal(t, int32(0), lib.EbspRegisterKernel("briefly", 0x10000))
	assert.Equal(t, int32(1), lib.EbspRegisterKernel("briefly", callback("never called", func() int32 { return 0 })))
	assert.Equal(t, int32(1), lib.EbspRegisterKernel("briefly", 0))
	assert.Equal(t, int32(0), lib.EbspRegisterKernel("briefly", 0), "removed already")
}
