package engine

import (
	"encoding/binary"
	"fmt"
	"slices"
	"unsafe"
)

// Agreement: under the collective registration rules (BSPlib, strict) all
// cores must register the same number of variables, withdraw as many
// registrations and set the same tag size in a superstep. Every core that
// did any of these sends core 0 a summary through the transport in step 0
// of the sync; core 0 compares them with its own in step 1, taking a
// missing summary for "did none of these", and decides which registration
// each pop withdraws (resolvePops). The board's model (atOnce) has none of
// these rules: each core kept its own tag size there, and cores that set
// different ones ran on (a tag is then read with the reader's size).

// kindRegSummary is a summary record (laneRequests, to core 0): a is the
// number of pushes, b the new tag size (or all ones: none), the payload
// the pop targets in call order (int32 each).
const kindRegSummary = kindMessage + 1

// kindPopPlan carries core 0's resolution of a sync's pops to the other
// cores (laneReplies, phase A to phase B): the payload the targets in
// order (int32 each). A record, not shared memory, so that it reaches
// cores in other processes.
const kindPopPlan = kindRegSummary + 1

func init() {
	registerKind(kindRegSummary, (*Core).receiveRegSummary)
	registerKind(kindPopPlan, (*Core).receivePopPlan)
}

// regSummary is what one core did to registrations and tag size.
type regSummary struct {
	pushes int
	pops   []int
	newTag int
}

// agreeState is core 0's view of the other cores' summaries in a sync.
type agreeState struct {
	seen []regSummary // by pid; the zero value (newTag 0) is replaced by none
	got  []bool
	all  []regSummary // checkAgreement's view of every core, reused
}

func (c *Core) ownSummary() regSummary {
	return regSummary{pushes: len(c.comm.pushes), pops: c.comm.pops, newTag: c.comm.newTag}
}

// sendRegSummary sends core 0 this core's summary, if it has one to send.
func (c *Core) sendRegSummary() {
	cs := &c.comm
	if c.pid == 0 || c.m.comm.atOnce || (len(cs.pushes) == 0 && len(cs.pops) == 0 && cs.newTag < 0) {
		return
	}
	data, err := c.outBlock(laneRequests, 0).add(kindRegSummary, uint32(len(cs.pushes)), uint32(int32(cs.newTag)), 4*len(cs.pops))
	if err != nil {
		cs.err = c.errorf("bsp_sync", "%v", err)
		return
	}
	putInt32s(data, cs.pops)
}

// putInt32s writes v into data as int32s, the payload of the
// registration layers' records.
func putInt32s(data []byte, v []int) {
	for i, w := range v {
		binary.LittleEndian.PutUint32(data[4*i:], uint32(int32(w)))
	}
}

// int32s reads such a payload, appending to v.
func int32s(v []int, data []byte) []int {
	for i := 0; i+4 <= len(data); i += 4 {
		v = append(v, int(int32(binary.LittleEndian.Uint32(data[i:]))))
	}
	return v
}

// receiveRegSummary keeps a summary until the lane is delivered (core 0).
func (c *Core) receiveRegSummary(src int, r record) {
	a := &c.comm.agree
	if a.seen == nil {
		a.seen = make([]regSummary, len(c.m.cores))
		a.got = make([]bool, len(c.m.cores))
	}
	a.seen[src] = regSummary{pushes: int(r.a), pops: int32s(a.seen[src].pops[:0], r.data), newTag: int(int32(r.b))}
	a.got[src] = true
}

// checkAgreement compares, on core 0 in phase A, every core's summary with
// its own, decides what the pops withdraw, and forgets the summaries.
func (c *Core) checkAgreement() *Error {
	if c.m.comm.atOnce {
		return nil
	}
	a := &c.comm.agree
	n := len(c.m.cores)
	if cap(a.all) < n {
		a.all = make([]regSummary, n)
	}
	sums := a.all[:n]
	sums[0] = c.ownSummary()
	for pid := 1; pid < n; pid++ {
		sums[pid] = regSummary{newTag: -1}
		if a.got != nil && a.got[pid] {
			sums[pid] = a.seen[pid]
		}
	}
	for pid := range a.got {
		a.got[pid] = false
	}
	for pid := 1; pid < n; pid++ {
		if err := c.m.cores[pid].disagreement(sums[pid], sums[0]); err != nil {
			return err
		}
	}
	return c.resolvePops(sums)
}

// disagreement is the misuse of core c, whose summary is s, against core
// 0's ref, or nil.
func (c *Core) disagreement(s, ref regSummary) *Error {
	if s.pushes != ref.pushes {
		return c.errorf("bsp_push_reg", "core %02d registered %d variable(s) in this superstep, core 00 registered %d; all cores must register the same variables in the same superstep",
			c.pid, s.pushes, ref.pushes)
	}
	if len(s.pops) != len(ref.pops) {
		return c.errorf("bsp_pop_reg", "core %02d withdrew %d registration(s) in this superstep, core 00 withdrew %d; all cores must withdraw the same registrations in the same superstep",
			c.pid, len(s.pops), len(ref.pops))
	}
	if s.newTag != ref.newTag {
		return c.errorf("bsp_set_tagsize", "core %02d %s, core 00 %s in this superstep; all cores must set the same tag size",
			c.pid, describeTag(s.newTag), describeTag(ref.newTag))
	}
	return nil
}

// resolvePops decides, on core 0, which registration each pop of this
// superstep withdraws: the k-th pop of every core withdraws the same one,
// so that the tables stay the same on all cores (every core applies the
// plan in phase B). It is the one that the lowest-numbered core whose
// k-th pop names an address (not NULL) names, as MulticoreBSP decides; if
// every core popped NULL there, the newest registration that is NULL on
// every core (BSPonMPI takes the oldest; such registrations cannot be told
// apart). Under strict checks every core must also withdraw the same
// registrations as core 0 (in any order), and a pop of NULL one that is
// NULL on its core.
func (c *Core) resolvePops(sums []regSummary) *Error {
	plan := c.m.comm.popPlan[:0]
	if len(sums[0].pops) == 0 {
		c.m.comm.popPlan = plan
		return nil
	}
	deciders := make([]int, len(sums[0].pops))     // the core that named plan[k], or -1
	inPlan := make(map[int]int, len(sums[0].pops)) // plan's targets: their index
	for k := range sums[0].pops {
		target, by := popNull, -1
		for pid := range sums {
			if t := sums[pid].pops[k]; t != popNull {
				target, by = t, pid
				break
			}
		}
		if by < 0 {
			if target = c.nullEverywhere(inPlan); target == popNull {
				return c.errorf("bsp_pop_reg", "every core popped NULL as pop %d of this superstep, and no registration is NULL on every core", k+1)
			}
		} else if j, ok := inPlan[target]; ok {
			return c.m.cores[by].errorf("bsp_pop_reg", "pop %d of this superstep on core %02d withdraws %s, which pop %d withdraws already: the cores pop in different orders; pop in the same order on every core",
				k+1, by, describeTarget(target), j+1)
		}
		inPlan[target] = len(plan)
		plan = append(plan, target)
		deciders[k] = by
	}
	c.m.comm.popPlan = plan
	c.sendPopPlan(plan)
	if c.m.comm.lenientPops {
		return nil
	}
	ref := slices.Sorted(slices.Values(plan))
	mine := make([]int, len(plan))
	for pid := range sums {
		o := c.m.cores[pid]
		for k, t := range sums[pid].pops {
			if t == popNull {
				if addr := o.targetAddr(plan[k]); addr != nil {
					return o.errorf("bsp_pop_reg", "pop %d of this superstep pops NULL, but the registration it withdraws with core %02d's pop %d (%s) is 0x%x on this core",
						k+1, deciders[k], k+1, describeTarget(plan[k]), shownAddress(addr))
				}
				t = plan[k]
			}
			mine[k] = t
		}
		slices.Sort(mine)
		if what := popDifference(pid, mine, ref); what != "" {
			return o.errorf("bsp_pop_reg", "%s; all cores must withdraw the same registrations in the same superstep", what)
		}
	}
	return nil
}

// nullEverywhere is the newest registration that is NULL on every core and
// not in taken, or popNull. Core 0 reads the other cores' tables (no core
// changes its own during phase A), of cores in other processes their
// mirrors (mirror.go).
func (c *Core) nullEverywhere(taken map[int]int) int {
	ok := func(t int) bool {
		if _, in := taken[t]; in {
			return false
		}
		for _, o := range c.m.cores {
			if o.targetAddr(t) != nil {
				return false
			}
		}
		return true
	}
	if c.m.comm.lenientPops {
		for j := len(c.comm.pushes) - 1; j >= 0; j-- {
			if ok(pushTarget(j)) {
				return pushTarget(j)
			}
		}
	}
	stack := c.comm.byAddr[nil]
	for i := len(stack) - 1; i >= 0; i-- {
		if ok(stack[i]) {
			return stack[i]
		}
	}
	return popNull
}

// targetAddr is this core's address of the registration target names.
func (c *Core) targetAddr(target int) unsafe.Pointer {
	if j, ok := pushOf(target); ok {
		return c.comm.pushes[j].addr
	}
	return c.comm.regs[target].addr
}

func describeTarget(target int) string {
	if j, ok := pushOf(target); ok {
		return fmt.Sprintf("the registration of push %d of this superstep", j+1)
	}
	return fmt.Sprintf("registration #%d", target)
}

// popDifference describes how the sorted pops of core pid differ from core 0's.
func popDifference(pid int, pops, ref []int) string {
	for i := range pops {
		if pops[i] != ref[i] {
			return fmt.Sprintf("core %02d withdrew registration #%d, core 00 withdrew #%d (registrations are numbered in the order they were made)", pid, pops[i], ref[i])
		}
	}
	return ""
}

func describeTag(newTag int) string {
	if newTag < 0 {
		return "did not set a tag size"
	}
	return fmt.Sprintf("set tag size %d", newTag)
}

// sendPopPlan sends every other core the plan of this sync's pops.
func (c *Core) sendPopPlan(plan []int) {
	if len(plan) == 0 {
		return
	}
	for pid := 1; pid < len(c.m.cores); pid++ {
		data, err := c.outBlock(laneReplies, pid).add(kindPopPlan, 0, 0, 4*len(plan))
		if err != nil {
			c.comm.err = c.errorf("bsp_sync", "%v", err)
			return
		}
		putInt32s(data, plan)
	}
}

// receivePopPlan keeps core 0's plan for installRegistrations (phase B).
func (c *Core) receivePopPlan(_ int, r record) {
	c.comm.popsIn = int32s(c.comm.popsIn[:0], r.data)
}
