package engine

import (
	"fmt"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"libebsp/emesh"
)

// watchMemory installs a check of CheckUser that counts the looks at the
// bytes [lo, hi) and, with bad, finds them unusable, as the C shim's check
// finds memory that is not there; the test's end restores the check of a
// test binary (NULL only).
func watchMemory(t *testing.T, lo, hi uintptr, bad bool, looks *atomic.Int32) {
	plain := func(p unsafe.Pointer, n int, _ bool) int {
		if p == nil {
			return 0
		}
		return n
	}
	emesh.SetUserMemoryCheck(func(p unsafe.Pointer, n int, write bool) int {
		a := uintptr(p)
		if p == nil || a >= hi || a+uintptr(n) <= lo {
			return plain(p, n, write)
		}
		looks.Add(1)
		switch {
		case !bad:
			return n
		case a >= lo:
			return 0
		}
		return int(lo - a)
	})
	t.Cleanup(func() { emesh.SetUserMemoryCheck(plain) })
}

// A request into a core's copy of a registered variable whose memory is
// not there (issue 33: a registration at a wild address) is reported with
// its call, by the core that carries it out, instead of faulting in Go.
func TestRequestIntoVariableWithoutMemory(t *testing.T) {
	var bad [64]int64 // core 1's variable: unusable to the check
	var looks atomic.Int32
	lo := uintptr(unsafe.Pointer(&bad))
	watchMemory(t, lo, lo+unsafe.Sizeof(bad), true, &looks)
	for _, c := range []struct {
		name, want string
		request    func(k kcore, v unsafe.Pointer, buf unsafe.Pointer) *Error
		atCall     bool
	}{
		{"put", "BSP ERROR: bsp_put: cannot write 8 bytes to core 01's copy of the registered variable at %#x: no writable memory there (a request of core 00) (superstep 1)",
			func(k kcore, v, buf unsafe.Pointer) *Error { return k.Put(1, buf, v, 8, 8) }, false},
		{"get", "BSP ERROR: bsp_get: cannot read 8 bytes of core 01's copy of the registered variable at %#x: no readable memory there (a request of core 00) (superstep 1)",
			func(k kcore, v, buf unsafe.Pointer) *Error { return k.Get(1, v, 8, buf, 8) }, false},
		{"hpput", "BSP ERROR: bsp_hpput: cannot write 8 bytes to core 01's copy of the registered variable at %#x: no writable memory there (superstep 1)",
			func(k kcore, v, buf unsafe.Pointer) *Error { return k.HPPut(1, buf, v, 8, 8) }, true},
		{"hpget", "BSP ERROR: bsp_hpget: cannot read 8 bytes of core 01's copy of the registered variable at %#x: no readable memory there (superstep 1)",
			func(k kcore, v, buf unsafe.Pointer) *Error { return k.HPGet(1, v, 8, buf, 8) }, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := newTestMachine(t, 2)
			var good [2][64]int64
			var atCall *Error
			err := spmd(t, m, func(k kcore) {
				v := ptr(&good[k.Pid()])
				if k.Pid() == 1 {
					v = ptr(&bad)
				}
				k.must(k.PushReg(v, int(unsafe.Sizeof(bad))))
				k.Sync()
				var buf int64
				if k.Pid() == 0 {
					atCall = c.request(k, ptr(&good[0]), ptr(&buf))
				}
				k.Sync()
			})
			if c.atCall {
				require.NotNil(t, atCall)
				assert.Equal(t, fmt.Sprintf(c.want, lo+8), atCall.Error())
				return
			}
			require.Nil(t, atCall)
			require.NotNil(t, err)
			assert.Equal(t, 1, err.Pid, "reported by the core whose copy it is")
			assert.Equal(t, fmt.Sprintf(c.want, lo+8), err.Error())
		})
	}
}

// The pages of a core's copy found good are remembered for the superstep:
// a loop of puts into one variable looks at its memory once per superstep
// and receiving core, not once per put.
func TestPutsIntoOneVariableLookOncePerSuperstep(t *testing.T) {
	var watched [2][64]int64
	var looks atomic.Int32
	lo := uintptr(unsafe.Pointer(&watched))
	watchMemory(t, lo, lo+unsafe.Sizeof(watched), false, &looks)
	m := newTestMachine(t, 2)
	require.Nil(t, spmd(t, m, func(k kcore) {
		k.must(k.PushReg(ptr(&watched[k.Pid()]), int(unsafe.Sizeof(watched[0]))))
		k.Sync()
		for step := 0; step < 3; step++ {
			for i := range 64 {
				v := int64(i)
				k.must(k.Put(1-k.Pid(), ptr(&v), ptr(&watched[k.Pid()]), 8*i, 8))
			}
			k.Sync()
		}
	}))
	for pid := range 2 {
		for i := range 64 {
			assert.Equal(t, int64(i), watched[pid][i])
		}
	}
	// 512 bytes lie in one or two pages: per superstep and core at most 2 looks
	assert.LessOrEqual(t, int(looks.Load()), 3*2*2, "looks at the variables' memory")
	assert.GreaterOrEqual(t, int(looks.Load()), 3*2, "every superstep looks again")
}
