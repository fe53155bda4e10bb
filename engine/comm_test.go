package engine

import (
	"fmt"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Each core's "memory": a per-core Go value, like a kernel's globals.
type vars struct {
	x    int64
	arr  [8]int64
	recv []byte
}

func perCore(n int) []*vars {
	v := make([]*vars, n)
	for i := range v {
		v[i] = &vars{}
	}
	return v
}

func TestPutRingAndGetBeforePut(t *testing.T) {
	const n = 5
	m := newTestMachine(t, n)
	mem := perCore(n)
	got := make([]int64, n)
	err := spmd(t, m, func(k kcore) {
		me := mem[k.Pid()]
		me.x = int64(k.Pid())
		k.must(k.PushReg(ptr(&me.x), 8))
		k.Sync()
		next, prev := (k.Pid()+1)%n, (k.Pid()+n-1)%n
		v := int64(100 + k.Pid())
		k.must(k.Put(next, ptr(&v), ptr(&me.x), 0, 8))
		v = -1 // the value was copied at the call
		k.must(k.Get(prev, ptr(&me.x), 0, ptr(&got[k.Pid()]), 8))
		k.Sync()
		assert.Empty(t, k.comm.gets, "the gets are done")
	})
	require.Nil(t, err)
	for pid := range n {
		prev := (pid + n - 1) % n
		assert.Equal(t, int64(100+prev), mem[pid].x, "put from the previous core")
		assert.Equal(t, int64(prev), got[pid], "get sees the value from before the puts")
	}
}

func TestEmptySyncTakesOneBarrier(t *testing.T) {
	m := newTestMachine(t, 3)
	steps := make([]int, 3)
	require.Nil(t, spmd(t, m, func(k kcore) {
		for step := stepFinish; ; steps[k.Pid()]++ {
			step = k.SyncStep(step)
			if step < 0 {
				require.Equal(t, StepOver, step)
				advance(k.Core)
				break
			}
			k.barrier()
		}
		var one int64
		k.must(k.PushReg(ptr(&one), 8)) // a sync with work takes three
		k.Sync()
	}))
	assert.Equal(t, []int{1, 1, 1}, steps)
	assert.Equal(t, 2, m.Core(0).Superstep())
}

func TestPutsApplyInSourceThenIssueOrder(t *testing.T) {
	const n = 4
	m := newTestMachine(t, n)
	mem := perCore(n)
	require.Nil(t, spmd(t, m, func(k kcore) {
		me := mem[k.Pid()]
		k.must(k.PushReg(ptr(&me.x), 8))
		k.Sync()
		for i := range 3 {
			v := int64(k.Pid()*10 + i)
			k.must(k.Put(0, ptr(&v), ptr(&me.x), 0, 8))
		}
		k.Sync()
	}))
	assert.Equal(t, int64(32), mem[0].x, "last source pid, last issued put wins")
}

func TestRegistrationsMatchByOrderWithDifferentSizes(t *testing.T) {
	const n = 3
	m := newTestMachine(t, n)
	mem := perCore(n)
	require.Nil(t, spmd(t, m, func(k kcore) {
		me := mem[k.Pid()]
		// same variables, different sizes per core, pushed in one superstep
		k.must(k.PushReg(ptr(&me.x), 8))
		k.must(k.PushReg(ptr(&me.arr), 8*(k.Pid()+1)))
		k.Sync()
		v := int64(7)
		if k.Pid() == 0 {
			k.must(k.Put(2, ptr(&v), ptr(&me.arr), 16, 8)) // core 2 registered 24 bytes
			k.must(k.Put(1, ptr(&v), ptr(&me.x), 0, 8))
		}
		k.Sync()
	}))
	assert.Equal(t, int64(7), mem[2].arr[2])
	assert.Equal(t, int64(7), mem[1].x)
}

func TestRepeatedPushPopKeepsTableSmall(t *testing.T) {
	const n, steps = 4, 200
	m := newTestMachine(t, n)
	mem := perCore(n)
	require.Nil(t, spmd(t, m, func(k kcore) {
		me := mem[k.Pid()]
		k.must(k.PushReg(ptr(&me.x), 8))
		k.Sync()
		for s := range steps {
			// alternate variables so slots are freed and reused
			a, b := ptr(&me.arr[s%8]), ptr(&me.arr[(s+1)%8])
			k.must(k.PushReg(a, 8))
			k.must(k.PushReg(b, 8))
			k.Sync()
			v := int64(s)
			k.must(k.Put((k.Pid()+1)%n, ptr(&v), b, 0, 8))
			k.must(k.PopReg(b)) // pops in another order than pushes
			k.must(k.PopReg(a))
			k.Sync()
			if me.arr[(s+1)%8] != int64(s) {
				k.t.Errorf("core %d superstep %d: got %d", k.Pid(), s, me.arr[(s+1)%8])
			}
		}
	}))
	for pid := range n {
		c := m.Core(pid)
		assert.Equal(t, 1, c.Registrations())
		assert.LessOrEqual(t, len(c.comm.regs), 3, "slots are reused")
	}
}

func TestStackedRegistrationNewestWins(t *testing.T) {
	m := newTestMachine(t, 2)
	mem := perCore(2)
	require.Nil(t, spmd(t, m, func(k kcore) {
		me := mem[k.Pid()]
		k.must(k.PushReg(ptr(&me.arr), 8))
		k.Sync()
		k.must(k.PushReg(ptr(&me.arr), 64))
		k.Sync()
		v := int64(5)
		k.must(k.Put(1-k.Pid(), ptr(&v), ptr(&me.arr), 56, 8)) // fits only the newer one
		k.Sync()
		k.must(k.PopReg(ptr(&me.arr)))
		k.Sync()
		err := k.Put(1-k.Pid(), ptr(&v), ptr(&me.arr), 56, 8)
		if assert.NotNil(k.t, err) {
			assert.Contains(k.t, err.What, "exceed the 8 bytes")
		}
	}))
	assert.Equal(t, int64(5), mem[0].arr[7])
}

func TestHPPutHPGetDirect(t *testing.T) {
	const n = 3
	m := newTestMachine(t, n)
	mem := perCore(n)
	got := make([]int64, n)
	addrs := make([]unsafe.Pointer, n)
	require.Nil(t, spmd(t, m, func(k kcore) {
		me := mem[k.Pid()]
		k.must(k.PushReg(ptr(&me.arr), 64))
		k.Sync()
		v := int64(k.Pid() + 1)
		k.must(k.HPPut((k.Pid()+1)%n, ptr(&v), ptr(&me.arr), 8*k.Pid(), 8))
		k.barrier()
		k.must(k.HPGet((k.Pid()+1)%n, ptr(&me.arr), 8*k.Pid(), ptr(&got[k.Pid()]), 8))
		var d int64
		k.must(k.DirectGet(k.Pid(), ptr(&me.arr), 8*((k.Pid()+n-1)%n), ptr(&d), 8))
		if d != int64((k.Pid()+n-1)%n+1) {
			k.t.Errorf("direct get on %d: %d", k.Pid(), d)
		}
		a, err := k.DirectAddress(2, ptr(&me.arr))
		k.must(err)
		addrs[k.Pid()] = a
		k.Sync()
	}))
	for pid := range n {
		assert.Equal(t, int64(pid+1), got[pid])
		assert.Equal(t, unsafe.Pointer(&mem[2].arr), addrs[pid])
	}
}

func TestMessages(t *testing.T) {
	const n = 4
	m := newTestMachine(t, n)
	logs := make([][]string, n)
	require.Nil(t, spmd(t, m, func(k kcore) {
		pid := k.Pid()
		logf := func(f string, a ...any) { logs[pid] = append(logs[pid], fmt.Sprintf(f, a...)) }
		tag := int32(4)
		old, err := k.SetTagsize(int(tag))
		k.must(err)
		logf("old tag %d now %d", old, k.Tagsize())
		k.Sync()
		logf("tag %d", k.Tagsize())
		// every core sends i+1 messages of growing size to core (pid+1)%n and one to itself
		for i := range pid + 1 {
			payload := []byte(strings.Repeat(string(rune('a'+pid)), i+1))
			tg := int32(pid*100 + i)
			k.must(k.Send((pid+1)%n, ptr(&tg), unsafe.Pointer(&payload[0]), len(payload)))
		}
		self := int32(-1)
		k.must(k.Send(pid, ptr(&self), nil, 0))
		var status int
		status = k.GetTag(nil)
		logf("empty %d", status)
		k.Sync()
		packets, bytes := k.QSize()
		logf("queue %d %d", packets, bytes)
		for {
			var tg int32
			st := k.GetTag(ptr(&tg))
			if st < 0 {
				break
			}
			if st == 3 {
				buf := make([]byte, 2)
				k.Move(unsafe.Pointer(&buf[0]), 2) // truncates
				logf("tag %d moved %q of %d", tg, buf, st)
				continue
			}
			tp, pp, size := k.HPMove()
			logf("tag %d hp %q", *(*int32)(tp), bytesAt(pp, size))
		}
		packets, _ = k.QSize()
		logf("left %d", packets)
		k.Sync()
		packets, _ = k.QSize()
		logf("after sync %d", packets)
	}))
	assert.Equal(t, []string{"old tag 0 now 0", "tag 4", "empty -1", "queue 5 10",
		"tag -1 hp \"\"", // from itself: lower pid than core 3
		"tag 300 hp \"d\"", "tag 301 hp \"dd\"", "tag 302 moved \"dd\" of 3", "tag 303 hp \"dddd\"",
		"left 0", "after sync 0"}, logs[0])
	assert.Equal(t, []string{"queue 2 1", "tag 0 hp \"a\"", "tag -1 hp \"\""}, logs[1][3:6], "by source pid")
}

func TestTagSizesDownAndUp(t *testing.T) {
	for _, tagsize := range []int{0, 3, 4, 8, 13} {
		t.Run(fmt.Sprint(tagsize), func(t *testing.T) {
			const n = 3
			m := newTestMachine(t, n)
			_, err := m.SetHostTagsize(tagsize)
			require.NoError(t, err)
			tag := make([]byte, 16)
			for i := range tag {
				tag[i] = byte(i + 1)
			}
			for pid := range n {
				payload := []byte(fmt.Sprintf("to %d", pid))
				require.NoError(t, m.SendDown(pid, unsafe.Pointer(&tag[0]), unsafe.Pointer(&payload[0]), len(payload)))
			}
			require.Nil(t, spmd(t, m, func(k kcore) {
				got := make([]byte, 16)
				size := k.GetTag(unsafe.Pointer(&got[0]))
				buf := make([]byte, 8)
				k.Move(unsafe.Pointer(&buf[0]), len(buf))
				if string(buf[:size]) != fmt.Sprintf("to %d", k.Pid()) || string(got[:tagsize]) != string(tag[:tagsize]) || got[tagsize] != 0 {
					k.t.Errorf("core %d got tag %v payload %q", k.Pid(), got, buf[:size])
				}
				newTag := tagsize + 1
				_, err := k.SetTagsize(newTag)
				k.must(err)
				k.Sync()
				up := []byte(fmt.Sprintf("up %d", k.Pid()))
				k.must(k.SendUp(unsafe.Pointer(&tag[0]), unsafe.Pointer(&up[0]), len(up)))
			}))
			assert.Equal(t, tagsize+1, m.HostTagsize())
			packets, bytes := m.HostQSize()
			assert.Equal(t, n, packets)
			assert.Equal(t, 3*4, bytes)
			for pid := range n {
				got := make([]byte, 16)
				size, err := m.HostGetTag(unsafe.Pointer(&got[0]))
				assert.NoError(t, err)
				assert.Equal(t, 4, size)
				assert.Equal(t, tag[:tagsize+1], got[:tagsize+1])
				if pid == 2 {
					tp, pp, size := m.HostHPMove()
					assert.Equal(t, tag[:tagsize+1], bytesAt(tp, tagsize+1))
					assert.Equal(t, "up 2", string(bytesAt(pp, size)))
					continue
				}
				buf := make([]byte, 3)
				assert.NoError(t, m.HostMove(unsafe.Pointer(&buf[0]), 3))
				assert.Equal(t, fmt.Sprintf("up %d", pid)[:3], string(buf))
			}
			size, err := m.HostGetTag(nil)
			assert.NoError(t, err)
			assert.Equal(t, -1, size)
			// down messages go to one run only
			require.Nil(t, spmd(t, m, func(k kcore) {
				assert.Equal(k.t, -1, k.GetTag(nil))
			}))
		})
	}
}

func TestDownMessagesVanishAtFirstSync(t *testing.T) {
	m := newTestMachine(t, 2)
	payload := []byte("x")
	require.NoError(t, m.SendDown(1, nil, unsafe.Pointer(&payload[0]), 1))
	require.Nil(t, spmd(t, m, func(k kcore) {
		p, _ := k.QSize()
		assert.Equal(k.t, k.Pid(), p)
		k.Sync() // empty sync: the queue is still cleared
		p, _ = k.QSize()
		assert.Equal(k.t, 0, p)
	}))
}

func TestHostMisuse(t *testing.T) {
	m := newTestMachine(t, 2)
	assert.ErrorContains(t, m.SendDown(2, nil, nil, 0), "ebsp_send_down: core 2 does not exist (bsp_begin started cores 0..1)")
	assert.ErrorContains(t, m.SendDown(0, nil, nil, -1), "negative size")
	_, err := m.SetHostTagsize(4)
	require.NoError(t, err)
	assert.ErrorContains(t, m.SendDown(0, nil, nil, 0), "tag is NULL")
	_, err = m.SetHostTagsize(-1)
	assert.Error(t, err)
}

func TestVariableSizeAllToAll(t *testing.T) {
	const n = 16
	m := newTestMachine(t, n)
	bad := make([]int, n)
	require.Nil(t, spmd(t, m, func(k kcore) {
		pid := k.Pid()
		for s := range 3 {
			for dst := range n {
				size := (pid*7 + dst*3 + s) % 50
				payload := make([]byte, size+1)
				for i := range payload {
					payload[i] = byte(pid + dst + i + s)
				}
				k.must(k.Send(dst, nil, unsafe.Pointer(&payload[0]), size))
			}
			k.Sync()
			for src := 0; ; src++ {
				_, pp, size := k.HPMove()
				if size < 0 {
					if src != n {
						bad[pid]++
					}
					break
				}
				if size != (src*7+pid*3+s)%50 {
					bad[pid]++
				}
				for i, b := range bytesAt(pp, size) {
					if b != byte(src+pid+i+s) {
						bad[pid]++
					}
				}
			}
		}
	}))
	assert.Equal(t, make([]int, n), bad)
}

// misuse runs kernel on 3 cores and returns the diagnostic; a second run
// on the same machine must then work.
func misuse(t *testing.T, kernel func(k kcore, me *vars)) string {
	t.Helper()
	m := newTestMachine(t, 3)
	mem := perCore(3)
	err := spmd(t, m, func(k kcore) {
		me := mem[k.Pid()]
		if !k.ok(k.PushReg(ptr(&me.x), 8)) || !k.Sync() {
			return
		}
		kernel(k, me)
	})
	require.NotNil(t, err, "misuse was not detected")
	require.Nil(t, spmd(t, m, func(k kcore) {
		me := mem[k.Pid()]
		k.must(k.PushReg(ptr(&me.x), 8))
		k.Sync()
		v := int64(1)
		k.must(k.Put(0, ptr(&v), ptr(&me.x), 0, 8))
		k.Sync()
	}))
	return fmt.Sprintf("%02d: %s", err.Pid, err.Error())
}

func TestMisuseDiagnostics(t *testing.T) {
	v := int64(0)
	cases := map[string]struct {
		kernel func(k kcore, me *vars)
		want   string
	}{
		"unregistered": {func(k kcore, me *vars) {
			if k.Pid() == 1 {
				k.ok(k.Put(0, ptr(&v), ptr(&me.arr), 0, 8))
			}
			k.Sync()
		}, "01: BSP ERROR: bsp_put: the address is not a registered variable (core 00, 8 bytes at offset 0) (superstep 1)"},
		"beyond": {func(k kcore, me *vars) {
			if k.Pid() == 2 {
				k.ok(k.Get(1, ptr(&me.x), 4, ptr(&v), 8))
			}
			k.Sync()
		}, "02: BSP ERROR: bsp_get: 8 bytes at offset 4 exceed the 8 bytes core 01 registered (superstep 1)"},
		"hpput pid": {func(k kcore, me *vars) {
			if k.Pid() == 0 {
				k.ok(k.HPPut(3, ptr(&v), ptr(&me.x), 0, 8))
			}
			k.Sync()
		}, "00: BSP ERROR: bsp_hpput: core 3 does not exist (this run has cores 0..2) (superstep 1)"},
		"negative": {func(k kcore, me *vars) {
			k.ok(k.HPGet(0, ptr(&me.x), 0, ptr(&v), -8))
			k.Sync()
		}, "BSP ERROR: bsp_hpget: negative size -8 (core 00) (superstep 1)"},
		"null": {func(k kcore, me *vars) {
			k.ok(k.Put(0, nil, ptr(&me.x), 0, 8))
			k.Sync()
		}, "BSP ERROR: bsp_put: the source is NULL but nbytes is 8 (superstep 1)"},
		"push count": {func(k kcore, me *vars) {
			k.ok(k.PushReg(ptr(&me.arr), 64))
			if k.Pid() == 2 {
				k.ok(k.PushReg(ptr(&me.recv), 8))
			}
			k.Sync()
		}, "02: BSP ERROR: bsp_push_reg: core 02 registered 2 variable(s) in this superstep, core 00 registered 1; all cores must register the same variables in the same superstep (superstep 1)"},
		"push only on core 0": {func(k kcore, me *vars) {
			if k.Pid() == 0 {
				k.ok(k.PushReg(ptr(&me.arr), 64))
			}
			k.Sync()
		}, "01: BSP ERROR: bsp_push_reg: core 01 registered 0 variable(s) in this superstep, core 00 registered 1; all cores must register the same variables in the same superstep (superstep 1)"},
		"pop": {func(k kcore, me *vars) {
			k.ok(k.PopReg(ptr(&me.arr)))
		}, "BSP ERROR: bsp_pop_reg: the address is not registered (superstep 1)"},
		"pop of this superstep's push": {func(k kcore, me *vars) {
			k.ok(k.PushReg(ptr(&me.arr), 64))
			k.ok(k.PopReg(ptr(&me.arr)))
		}, "BSP ERROR: bsp_pop_reg: the address is not registered yet (its bsp_push_reg in this superstep takes effect at the next bsp_sync) (superstep 1)"},
		"pop differs": {func(k kcore, me *vars) {
			k.ok(k.PushReg(ptr(&me.arr), 64))
			k.Sync()
			if k.Pid() == 1 {
				k.ok(k.PopReg(ptr(&me.arr)))
			} else {
				k.ok(k.PopReg(ptr(&me.x)))
			}
			k.Sync()
		}, "01: BSP ERROR: bsp_pop_reg: core 01 withdrew registration #1, core 00 withdrew #0 (registrations are numbered in the order they were made); all cores must withdraw the same registrations in the same superstep (superstep 2)"},
		"tagsize": {func(k kcore, me *vars) {
			if k.Pid() > 0 {
				_, err := k.SetTagsize(k.Pid())
				k.ok(err)
			}
			k.Sync()
		}, "01: BSP ERROR: bsp_set_tagsize: core 01 set tag size 1, core 00 did not set a tag size in this superstep; all cores must set the same tag size (superstep 1)"},
		"send up early": {func(k kcore, me *vars) {
			k.ok(k.SendUp(nil, nil, 0))
			k.Sync()
		}, "BSP ERROR: ebsp_send_up: called before bsp_sync; messages to the host may only be sent in the last superstep, after the final bsp_sync (superstep 1)"},
		"send pid": {func(k kcore, me *vars) {
			k.ok(k.Send(-1, nil, nil, 0))
		}, "BSP ERROR: bsp_send: core -1 does not exist (this run has cores 0..2) (superstep 1)"},
		"direct address pid": {func(k kcore, me *vars) {
			_, err := k.DirectAddress(9, ptr(&me.x))
			k.ok(err)
		}, "BSP ERROR: ebsp_get_direct_address: core 9 does not exist (this run has cores 0..2) (superstep 1)"},
		"direct address unregistered": {func(k kcore, me *vars) {
			a, err := k.DirectAddress(0, ptr(&me.recv))
			assert.Nil(k.t, a)
			k.ok(err)
		}, "BSP ERROR: ebsp_get_direct_address: the address is not a registered variable (core 00) (superstep 1)"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := misuse(t, tc.kernel)
			assert.True(t, strings.HasSuffix(got, tc.want), "got  %s\nwant %s", got, tc.want)
		})
	}
}

func TestChecksOffSkipsRangeCheck(t *testing.T) {
	m := newTestMachine(t, 2)
	m.CommConfig(CheckOff, 0)
	mem := perCore(2)
	require.Nil(t, spmd(t, m, func(k kcore) {
		me := mem[k.Pid()]
		k.must(k.PushReg(ptr(&me.arr), 8))
		k.Sync()
		v := int64(3)
		k.must(k.Put(0, ptr(&v), ptr(&me.arr), 8, 8)) // beyond the 8 registered bytes, inside the array
		k.Sync()
	}))
	assert.Equal(t, int64(3), mem[0].arr[1])
}

func TestCommLimitIsAClearError(t *testing.T) {
	m := newTestMachine(t, 2)
	m.CommConfig(CheckStrict, 1)
	payload := make([]byte, 4096)
	err := spmd(t, m, func(k kcore) {
		for range 1000 {
			if !k.ok(k.Send(0, nil, unsafe.Pointer(&payload[0]), len(payload))) {
				return
			}
		}
		k.Sync()
	})
	require.NotNil(t, err)
	assert.Contains(t, err.Error(), "communication memory exhausted: this core queued more than 1 MiB in one superstep (raise EBSP_COMM_LIMIT_MB)")
}

func TestArenaGrowthKeepsContents(t *testing.T) {
	var a buffer
	defer a.free()
	for i := range 100000 {
		require.NoError(t, a.grow(3))
		copy(a.take(3), []byte{byte(i), byte(i >> 8), byte(i >> 16)})
	}
	for i := range 100000 {
		require.Equal(t, []byte{byte(i), byte(i >> 8), byte(i >> 16)}, a.mem[3*i:3*i+3], "record %d", i)
	}
}

func TestManyLargeMessages(t *testing.T) {
	m := newTestMachine(t, 2)
	payload := make([]byte, 4096)
	var got [2]int
	require.Nil(t, spmd(t, m, func(k kcore) {
		for i := range 300 {
			payload := append([]byte(nil), payload...)
			payload[0] = byte(i)
			k.must(k.Send(0, nil, unsafe.Pointer(&payload[0]), len(payload)))
		}
		k.Sync()
		for i := 0; ; i++ {
			_, pp, size := k.HPMove()
			if size < 0 {
				break
			}
			if size != 4096 || *(*byte)(pp) != byte(i%300) {
				k.t.Errorf("message %d: size %d first byte %d", i, size, *(*byte)(pp))
			}
			got[k.Pid()]++
		}
	}))
	assert.Equal(t, [2]int{600, 0}, got)
}

// An empty superstep still drops the messages of the one before: the core
// holding them tells the shim that its sync needs the engine (the pending
// mirror), while the others pass the barrier alone.
func TestEmptySyncDropsQueuedMessages(t *testing.T) {
	m := newTestMachine(t, 3)
	queued := make([][]int, 3)
	require.Nil(t, spmd(t, m, func(k kcore) {
		if k.Pid() == 0 {
			k.must(k.Send(1, nil, ptr(new(int64)), 8))
		}
		for range 3 {
			k.Sync()
			n, _ := k.QSize()
			queued[k.Pid()] = append(queued[k.Pid()], n)
			pending := k.pending.Load()
			queued[k.Pid()] = append(queued[k.Pid()], int(pending))
		}
	}))
	// per sync: messages queued, then whether the next sync needs the engine
	assert.Equal(t, [][]int{{0, 0, 0, 0, 0, 0}, {1, 1, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0}}, queued)
}

// A get of the bytes right after the last get's source, into the bytes
// right after its destination, joins it: one request for a loop of word
// gets, with the values of separate gets; any other get starts a new one.
func TestGetsOfNextBytesJoin(t *testing.T) {
	const n = 3
	m := newTestMachine(t, n)
	mem := perCore(n)
	got := make([][10]int64, n)
	requests := make([]int, n)
	require.Nil(t, spmd(t, m, func(k kcore) {
		me := mem[k.Pid()]
		for i := range me.arr {
			me.arr[i] = int64(10*k.Pid() + i)
		}
		k.must(k.PushReg(ptr(&me.arr), 64))
		k.Sync()
		next := (k.Pid() + 1) % n
		g := &got[k.Pid()]
		for i := range 4 { // one run: words 0..3 into g[0..3]
			k.must(k.Get(next, ptr(&me.arr), 8*i, ptr(&g[i]), 8))
		}
		k.must(k.Get(next, ptr(&me.arr), 8*5, ptr(&g[5]), 8)) // a gap in the source
		k.must(k.Get(next, ptr(&me.arr), 8*6, ptr(&g[7]), 8)) // a gap in the destination
		k.must(k.Get(next, ptr(&me.arr), 8*7, ptr(&g[8]), 8)) // joins the one before
		requests[k.Pid()] = k.outBlock(laneRequests, next).count[kindGetRequest]
		me.arr[0] = -1 // changed after the gets: they read it at the sync
		k.Sync()
	}))
	for pid := range n {
		next := (pid + 1) % n
		want := [10]int64{int64(10 * next), int64(10*next + 1), int64(10*next + 2), int64(10*next + 3), 0,
			int64(10*next + 5), 0, int64(10*next + 6), int64(10*next + 7), 0}
		want[0] = -1
		assert.Equal(t, want, got[pid], "core %d", pid)
		assert.Equal(t, 3, requests[pid], "core %d: the requests packed", pid)
	}
}
