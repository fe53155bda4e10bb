package runtime

import (
	"encoding/binary"
	"fmt"
)

// Agreement: under the collective registration rules (BSPlib, strict) all
// cores must register the same number of variables, withdraw the same
// registrations and set the same tag size in a superstep. Every core that
// did any of these sends core 0 a summary through the transport in step 0
// of the sync; core 0 compares them with its own in step 1, taking a
// missing summary for "did none of these". The board's model (atOnce) has
// none of these rules: each core kept its own tag size there, and cores
// that set different ones ran on (a tag is then read with the reader's
// size).

// kindRegSummary is a summary record (laneRequests, to core 0): a is the
// number of pushes, b the new tag size (or all ones: none), the payload
// the sorted popped slots.
const kindRegSummary = kindMessage + 1

func init() { registerKind(kindRegSummary, (*Core).receiveRegSummary) }

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
	for i, slot := range cs.pops {
		binary.LittleEndian.PutUint32(data[4*i:], uint32(slot))
	}
}

// receiveRegSummary keeps a summary until the lane is delivered (core 0).
func (c *Core) receiveRegSummary(src int, r record) {
	a := &c.comm.agree
	if a.seen == nil {
		a.seen = make([]regSummary, len(c.m.cores))
		a.got = make([]bool, len(c.m.cores))
	}
	pops := a.seen[src].pops[:0]
	for i := 0; i+4 <= len(r.data); i += 4 {
		pops = append(pops, int(binary.LittleEndian.Uint32(r.data[i:])))
	}
	a.seen[src] = regSummary{pushes: int(r.a), pops: pops, newTag: int(int32(r.b))}
	a.got[src] = true
}

// checkAgreement compares, on core 0 in phase A, every core's summary with
// its own, and forgets them.
func (c *Core) checkAgreement() *Error {
	if c.m.comm.atOnce {
		return nil
	}
	a := &c.comm.agree
	ref := c.ownSummary()
	var err *Error
	for pid := 1; pid < len(c.m.cores) && err == nil; pid++ {
		other := regSummary{newTag: -1}
		if a.got != nil && a.got[pid] {
			other = a.seen[pid]
			a.got[pid] = false
		}
		err = c.m.cores[pid].disagreement(other, ref)
	}
	for pid := range a.got {
		a.got[pid] = false
	}
	return err
}

// disagreement is the misuse of core c, whose summary is s, against core
// 0's ref, or nil.
func (c *Core) disagreement(s, ref regSummary) *Error {
	if s.pushes != ref.pushes {
		return c.errorf("bsp_push_reg", "core %02d registered %d variable(s) in this superstep, core 00 registered %d; all cores must register the same variables in the same superstep",
			c.pid, s.pushes, ref.pushes)
	}
	if what := popDifference(c.pid, s.pops, ref.pops); what != "" {
		return c.errorf("bsp_pop_reg", "%s; all cores must withdraw the same registrations in the same superstep", what)
	}
	if s.newTag != ref.newTag {
		return c.errorf("bsp_set_tagsize", "core %02d %s, core 00 %s in this superstep; all cores must set the same tag size",
			c.pid, describeTag(s.newTag), describeTag(ref.newTag))
	}
	return nil
}

// popDifference describes how the sorted pops of core pid differ from core 0's.
func popDifference(pid int, pops, ref []int) string {
	if len(pops) != len(ref) {
		return fmt.Sprintf("core %02d withdrew %d registration(s) in this superstep, core 00 withdrew %d", pid, len(pops), len(ref))
	}
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
