package engine

import "fmt"

// Probes are what the engine asks of the layer that runs the cores (the C
// scheduler in capi, a Go driver in tests): how far a core has come, and
// how to print a core's line so that it keeps its place among the core's
// other output.
type Probes struct {
	// Arrivals counts the barrier rounds core pid has taken part in during
	// this run: each barrier it arrived at (any kind: a sync's,
	// ebsp_barrier, host sync, an LQCD collective, bsp_end), and leaving
	// its kernel, which counts in the round under way. nil: every core
	// counts as gone (nothing waits for another core).
	Arrivals func(pid int) int
	// Print prints "$PP: text" as ebsp_message does; nil: fmt.Printf.
	Print func(pid int, text string)
}

// SetProbes installs the probes; call before the first run.
func (m *Machine) SetProbes(p Probes) { m.probes = p }

// ahead reports whether core pid can no longer act before core self, which
// runs kernel code, reaches its next barrier: pid waits at that barrier or
// left its kernel. With as many arrivals as self, pid is in self's
// superstep: it runs, has not started, is blocked in an LQCD wait (which
// returns by itself), or is still leaving the barrier both passed (released,
// not yet resumed) -- it may still act. No core passes a barrier before
// every core arrived, so pid never has fewer.
func (m *Machine) ahead(pid, self int) bool {
	if m.probes.Arrivals == nil {
		return true
	}
	return m.probes.Arrivals(pid) > m.probes.Arrivals(self)
}

func (m *Machine) print(pid int, text string) {
	if m.probes.Print != nil {
		m.probes.Print(pid, text)
		return
	}
	fmt.Printf("$%02d: %s\n", pid, text)
}
