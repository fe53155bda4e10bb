package runtime

import "fmt"

// Probes are what the engine asks of the layer that runs the cores (the C
// scheduler in capi, a Go driver in tests): where a core is, and how to
// print a core's line so that it keeps its place among the core's other
// output.
type Probes struct {
	// Where tells what core pid is doing; nil: every core counts as
	// stopped (nothing waits for another core).
	Where func(pid int) Where
	// Print prints "$PP: text" as ebsp_message does; nil: fmt.Printf.
	Print func(pid int, text string)
}

// SetProbes installs the probes; call before the first run.
func (m *Machine) SetProbes(p Probes) { m.probes = p }

// running reports whether core pid may still act in this superstep: it
// runs kernel code (or has not started), as opposed to waiting in a
// synchronisation or having left its kernel. A core blocked in an LQCD
// waitFor returns from it by itself (a timeout), so it counts as running.
func (m *Machine) running(pid int) bool {
	if m.probes.Where == nil {
		return false
	}
	w := m.probes.Where(pid)
	return w == WhereRunning || w == WhereIdle || w == WhereLqcdWait
}

func (m *Machine) print(pid int, text string) {
	if m.probes.Print != nil {
		m.probes.Print(pid, text)
		return
	}
	fmt.Printf("$%02d: %s\n", pid, text)
}
