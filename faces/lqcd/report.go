package lqcd

import (
	"errors"
	"strings"

	"libebsp/engine"
	"libebsp/faces/lqcd/grid"
)

// The Go half of the face: where the grid's ranks run, what its misuse is
// recorded as, and its report of a deadlock. capi's exports (capi/lqcd.go)
// carry the C arguments here and print what these return.

// AbortReason is what a fatal misuse of the LQCD API (cores in different
// collectives) is recorded as when it stops the run.
const AbortReason = "LQCD ERROR"

// DeadlockHeader heads the report of cores blocked in LQCD waits
// (waitFor, waitForMultiple, sendBroadcast) that no core left running can
// end, the others in barriers.
const DeadlockHeader = "BSP ERROR: deadlock: every core waits, and no core that runs is left to end an LQCD wait"

// Placement places the LQCD grid dims on m's mesh (declareTopology, once
// per run): the pid of each of the nprocs ranks.
func Placement(m *engine.Machine, dims []int, nprocs int) ([]int, error) {
	if m == nil {
		return nil, errors.New("no machine")
	}
	mesh := m.Mesh()
	return grid.Placement(mesh.Rows, mesh.Cols, nprocs, dims)
}

// A Place says where core pid is and its superstep (a stall report's
// line of the core).
type Place = func(pid int) (engine.Where, int)

// SentPlace is where the cores of a job are by sent, the pairs (where,
// superstep) the ranks gave rank 0 for each core of the job (a pair -1,
// -1: unknown): an unknown core is on another MPI rank, at the last
// superstep this process knows of it.
func SentPlace(m *engine.Machine, sent []int32) Place {
	return func(pid int) (engine.Where, int) {
		if 2*pid+1 >= len(sent) || sent[2*pid] < 0 {
			return engine.WhereElsewhere, m.Core(pid).ReportStep()
		}
		return engine.Where(sent[2*pid]), int(sent[2*pid+1])
	}
}

// DeadlockReport is the report of a run in which every core waits and
// none of the waits can end, some of them LQCD waits: where each core is,
// as other deadlocks are reported, then details, the face's line per LQCD
// wait ("  core NN in waitFor: ...").
func DeadlockReport(m *engine.Machine, place Place, details string) []string {
	lines := m.StallReportOf(DeadlockHeader, place)
	if d := strings.TrimRight(details, "\n"); d != "" {
		lines = append(lines, strings.Split(d, "\n")...)
	}
	return lines
}
