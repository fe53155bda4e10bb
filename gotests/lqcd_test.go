package gotests

import (
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/ebitengine/purego"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The LQCD message API (lqcd_msg.h) called from a Go kernel through purego.
var lq struct {
	InitMachine         func() int32
	DeclareTopology     func(dims unsafe.Pointer, n, local int32)
	DeclareReceive      func(buf unsafe.Pointer, nbytes, name int32) uintptr
	DeclareSendRelative func(buf unsafe.Pointer, nbytes, rel, name int32) uintptr
	StartSend           func(op uintptr)
	StartReceive        func(op uintptr)
	WaitFor             func(op uintptr, ms int32) int32
	SumDouble           func(x float64) float64
	GetErrorNumber      func() int32
}

var lqOnce sync.Once

func loadLqcd(t *testing.T) {
	loadLib(t)
	lqOnce.Do(func() {
		h, err := purego.Dlopen(libPath, purego.RTLD_NOW|purego.RTLD_GLOBAL)
		require.NoError(t, err)
		purego.RegisterLibFunc(&lq.InitMachine, h, "initMachine")
		purego.RegisterLibFunc(&lq.DeclareTopology, h, "declareTopology")
		purego.RegisterLibFunc(&lq.DeclareReceive, h, "declareReceive")
		purego.RegisterLibFunc(&lq.DeclareSendRelative, h, "declareSendRelative")
		purego.RegisterLibFunc(&lq.StartSend, h, "startSend")
		purego.RegisterLibFunc(&lq.StartReceive, h, "startReceive")
		purego.RegisterLibFunc(&lq.WaitFor, h, "waitFor")
		purego.RegisterLibFunc(&lq.SumDouble, h, "sumDouble")
		purego.RegisterLibFunc(&lq.GetErrorNumber, h, "getErrorNumber")
	})
}

// Buffers the library keeps pointers to live in globals (never moved,
// never freed), indexed by pid: a registered kernel shares them.
var (
	ringIn, ringOut [16]int64
	ringDims        [16][1]int32
	ringGot         [16]atomic.Int64
	ringSum         [16]atomic.Uint64
)

func lqcdRingKernel() int {
	lib.BspBegin(0)
	pid := lib.BspPid()
	p := lib.BspNprocs()
	lq.InitMachine()
	ringDims[pid][0] = p
	lq.DeclareTopology(unsafe.Pointer(&ringDims[pid][0]), 1, pid)
	rx := lq.DeclareReceive(unsafe.Pointer(&ringIn[pid]), 8, 1)
	tx := lq.DeclareSendRelative(unsafe.Pointer(&ringOut[pid]), 8, +1, 1)
	if rx != 0 && tx != 0 {
		ringOut[pid] = int64(100 + pid)
		lq.StartReceive(rx)
		lq.StartSend(tx)
		if lq.WaitFor(rx, 10000) == 1 && lq.WaitFor(tx, 10000) == 1 {
			ringGot[pid].Store(ringIn[pid])
		}
	}
	s := lq.SumDouble(float64(pid))
	ringSum[pid].Store(uint64(s))
	lib.BspEnd()
	return 0
}

func TestLqcdFromAGoKernel(t *testing.T) {
	loadLqcd(t)
	ok := runKernel(t, "lqcd-ring", callback("lqcdRingKernel", lqcdRingKernel), 16)
	require.Equal(t, int32(1), ok)
	// a ring of 16 on the 4x4 mesh: each core's -x neighbour sent to it
	got := map[int64]bool{}
	for pid := 0; pid < 16; pid++ {
		v := ringGot[pid].Load()
		assert.True(t, v >= 100 && v < 116 && v != int64(100+pid), "core %d received %d", pid, v)
		got[v] = true
		assert.Equal(t, uint64(120), ringSum[pid].Load(), "core %d sumDouble", pid)
	}
	assert.Len(t, got, 16, "every core's value arrived once")
}
