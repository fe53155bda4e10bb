package engine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Which registration a bsp_pop_reg withdraws (reg.go popTarget, agreement.go
// resolvePops). The BSPlib face below strict takes what MulticoreBSP and
// BSPonMPI take; strict holds the cores to withdrawing the same
// registrations.

// bsplibMachine is a test machine with the BSPlib face's default rules.
func bsplibMachine(t *testing.T, n int) *Machine {
	m := newTestMachine(t, n)
	m.CommConfig(CheckBoard, 0)
	return m
}

// sameTables checks that every core holds the same slots, and returns
// core 0's number of registrations.
func sameTables(t *testing.T, m *Machine) int {
	t.Helper()
	live := func(c *Core) []bool {
		var out []bool
		for _, r := range c.comm.regs {
			out = append(out, r.live)
		}
		return out
	}
	ref := live(m.Core(0))
	for pid := 1; pid < m.Nprocs(); pid++ {
		assert.Equal(t, ref, live(m.Core(pid)), "core %d's slots", pid)
	}
	return m.Core(0).Registrations()
}

// A pop withdraws the newest registration, and a push of its own
// superstep is newer than those in force: the two cancel out.
func TestBSPlibPopWithdrawsThisSuperstepsPush(t *testing.T) {
	m := bsplibMachine(t, 2)
	mem := perCore(2)
	require.Nil(t, spmd(t, m, func(k kcore) {
		me := mem[k.Pid()]
		k.must(k.PushReg(ptr(&me.arr), 8))
		k.must(k.PushReg(ptr(&me.x), 8))
		k.must(k.PushReg(ptr(&me.x), 8))
		k.must(k.PopReg(ptr(&me.x)))
		k.must(k.PopReg(ptr(&me.x)))
		k.must(k.PushReg(nil, 0))
		k.must(k.PopReg(nil))
		k.Sync()
		k.must(k.PushReg(ptr(&me.arr), 64))
		k.must(k.PopReg(ptr(&me.arr))) // the 64 bytes, not the 8 in force
		k.Sync()
		v := int64(3)
		k.must(k.Put(1-k.Pid(), ptr(&v), ptr(&me.arr), 0, 8))
		if err := k.Put(1-k.Pid(), ptr(&v), ptr(&me.arr), 56, 8); assert.NotNil(k.t, err) {
			assert.Contains(k.t, err.What, "exceed the 8 bytes")
		}
		k.Sync()
	}))
	assert.Equal(t, int64(3), mem[1].arr[0])
	assert.Equal(t, 1, sameTables(t, m))
}

// A pop of NULL withdraws what the lowest core popping an address names
// (BSPonMPI's pop_reg_6); when every core pops NULL, a registration that
// is NULL on every core (pop_reg_5).
func TestBSPlibPopOfNULLFollowsTheOthers(t *testing.T) {
	for _, tc := range []struct {
		name string
		run  func(k kcore, me *vars)
	}{
		{"core 0 registered NULL", func(k kcore, me *vars) {
			if k.Pid() == 0 {
				k.must(k.PushReg(nil, 0))
			} else {
				k.must(k.PushReg(ptr(&me.x), 8))
			}
			k.must(k.PushReg(nil, 0))
			k.must(k.PushReg(ptr(&me.arr), 64))
			k.Sync()
			if k.Pid() == 0 {
				k.must(k.PopReg(nil)) // its own newest NULL is slot 1; core 1 names slot 0
			} else {
				k.must(k.PopReg(ptr(&me.x)))
			}
		}},
		{"every core pops NULL", func(k kcore, me *vars) {
			k.must(k.PushReg(nil, 0))
			if k.Pid() == 0 {
				k.must(k.PushReg(nil, 0))
			} else {
				k.must(k.PushReg(ptr(&me.x), 8))
			}
			k.must(k.PushReg(ptr(&me.arr), 64))
			k.Sync()
			k.must(k.PopReg(nil)) // slot 0, the one NULL everywhere
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := bsplibMachine(t, 3)
			mem := perCore(3)
			require.Nil(t, spmd(t, m, func(k kcore) {
				me := mem[k.Pid()]
				tc.run(k, me)
				k.Sync()
				v := int64(10 + k.Pid())
				k.must(k.Put((k.Pid()+1)%3, ptr(&v), ptr(&me.arr), 0, 8))
				if k.Pid() == 1 && tc.name == "every core pops NULL" {
					k.must(k.Put(2, ptr(&v), ptr(&me.x), 0, 8)) // x is still registered
				}
				k.Sync()
			}))
			assert.Equal(t, []int64{12, 10, 11}, []int64{mem[0].arr[0], mem[1].arr[0], mem[2].arr[0]})
			assert.Equal(t, 2, sameTables(t, m))
			if tc.name == "every core pops NULL" {
				assert.Equal(t, int64(11), mem[2].x)
			}
		})
	}
}

// Pops of different addresses: below strict the lowest core decides for
// every core; strict reports it.
func TestBSPlibPopsInDifferentOrders(t *testing.T) {
	kernel := func(mem []*vars) func(k kcore) {
		return func(k kcore) {
			me := mem[k.Pid()]
			k.must(k.PushReg(ptr(&me.x), 8))
			k.must(k.PushReg(ptr(&me.arr), 64))
			k.Sync()
			if k.Pid() == 0 {
				k.ok(k.PopReg(ptr(&me.x)))
			} else {
				k.ok(k.PopReg(ptr(&me.arr)))
			}
			k.Sync()
		}
	}
	mem := perCore(2)
	m := bsplibMachine(t, 2)
	require.Nil(t, spmd(t, m, kernel(mem)))
	assert.Equal(t, 1, sameTables(t, m))
	_, ok := m.Core(1).registeredSlot(ptr(&mem[1].arr))
	assert.True(t, ok, "core 1's arr stays: core 0's pop named x, slot 0")
	_, ok = m.Core(1).registeredSlot(ptr(&mem[1].x))
	assert.False(t, ok)

	err := spmd(t, newTestMachine(t, 2), kernel(perCore(2)))
	require.NotNil(t, err)
	assert.Equal(t, "BSP ERROR: bsp_pop_reg: core 01 withdrew registration #1, core 00 withdrew #0 (registrations are numbered in the order they were made); all cores must withdraw the same registrations in the same superstep (superstep 1)", err.Error())
}

// What no rule makes well-defined stops the run at every level.
func TestBSPlibPopMisuse(t *testing.T) {
	cases := map[string]struct {
		strict bool
		kernel func(k kcore, me *vars)
		want   string // %p: core 2's arr
	}{
		"no registration NULL everywhere": {false, func(k kcore, me *vars) {
			if k.Pid() == 0 {
				k.ok(k.PushReg(ptr(&me.arr), 8))
				k.ok(k.PushReg(nil, 0))
			} else {
				k.ok(k.PushReg(nil, 0))
				k.ok(k.PushReg(ptr(&me.arr), 8))
			}
			k.ok(k.PopReg(nil))
		}, "00: BSP ERROR: bsp_pop_reg: every core popped NULL as pop 1 of this superstep, and no registration is NULL on every core (superstep 1)"},
		"one registration twice": {false, func(k kcore, me *vars) {
			k.ok(k.PushReg(ptr(&me.arr), 8))
			k.Sync()
			if k.Pid() == 0 {
				k.ok(k.PopReg(ptr(&me.arr)))
				k.ok(k.PopReg(nil))
			} else {
				k.ok(k.PopReg(nil))
				k.ok(k.PopReg(ptr(&me.arr)))
			}
		}, "01: BSP ERROR: bsp_pop_reg: pop 2 of this superstep on core 01 withdraws registration #1, which pop 1 withdraws already: the cores pop in different orders; pop in the same order on every core (superstep 2)"},
		"strict: NULL for an address": {true, func(k kcore, me *vars) {
			k.ok(k.PushReg(ptr(&me.arr), 8))
			k.Sync()
			if k.Pid() == 2 {
				k.ok(k.PushReg(nil, 0))
				k.Sync()
				k.ok(k.PopReg(nil))
			} else {
				k.ok(k.PushReg(ptr(&me.recv), 0))
				k.Sync()
				k.ok(k.PopReg(ptr(&me.arr)))
			}
		}, "02: BSP ERROR: bsp_pop_reg: pop 1 of this superstep pops NULL, but the registration it withdraws with core 00's pop 1 (registration #1) is %p on this core (superstep 3)"},
		"strict: a pop of this superstep's NULL push": {true, func(k kcore, me *vars) {
			k.ok(k.PushReg(nil, 0))
			if k.Pid() == 0 {
				k.ok(k.PopReg(nil))
			}
		}, "00: BSP ERROR: bsp_pop_reg: the address is not registered yet (its bsp_push_reg in this superstep takes effect at the next bsp_sync) (superstep 1)"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			m := newTestMachine(t, 3)
			if !tc.strict {
				m.CommConfig(CheckBoard, 0)
			}
			mem := perCore(3)
			err := spmd(t, m, func(k kcore) {
				me := mem[k.Pid()]
				if !k.ok(k.PushReg(ptr(&me.x), 8)) || !k.Sync() {
					return
				}
				tc.kernel(k, me)
				k.Sync()
			})
			require.NotNil(t, err, "misuse was not detected")
			want := tc.want
			if strings.Contains(want, "%p") {
				want = fmt.Sprintf(want, &mem[2].arr)
			}
			assert.Equal(t, want, fmt.Sprintf("%02d: %s", err.Pid, err.Error()))
		})
	}
}
