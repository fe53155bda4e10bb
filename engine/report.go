package engine

import (
	"fmt"
	"sort"
	"strings"
)

// Where is what a core is doing, as the scheduler sees it. The values match
// enum ebsp_where of the C shim.
type Where int

// Places a core can be in; see the C scheduler.
const (
	WhereIdle Where = iota
	WhereRunning
	WhereSync
	WhereBarrier
	WhereHostSync
	WhereEnd
	WhereFinished
	WhereLqcd     // in an LQCD collective (sumDouble, waitForBarrier, ...)
	WhereLqcdWait // blocked in LQCD waitFor / waitForMultiple
	// WhereElsewhere: in another process (an MPI rank), which a report
	// of this one cannot see (not a place of the C scheduler's).
	WhereElsewhere = 100
)

func (w Where) String() string {
	switch w {
	case WhereRunning:
		return "running"
	case WhereSync:
		return "waiting in bsp_sync"
	case WhereBarrier:
		return "waiting in ebsp_barrier"
	case WhereHostSync:
		return "waiting in ebsp_host_sync"
	case WhereEnd:
		return "waiting in bsp_end"
	case WhereFinished:
		return "returned from its kernel"
	case WhereLqcd:
		return "waiting in an LQCD collective"
	case WhereLqcdWait:
		return "waiting in LQCD waitFor"
	case WhereElsewhere:
		return "on other MPI ranks"
	}
	return "not started"
}

// Headers of stall reports.
const (
	DeadlockHeader = "BSP ERROR: deadlock: the cores can no longer all meet in one synchronization"
	TimeoutHeader  = "BSP ERROR: no progress for %g s (EBSP_TIMEOUT): the run is stopped"
	NoEndHeader    = "BSP ERROR: deadlock: every core returned from its kernel without bsp_end, for which the host waits (on the board, for ever)"
)

// StallReport explains why the cores make no progress: some left the run,
// wait in different kinds of synchronization, or compute forever. where
// gives each core's place. One line per group of cores in the same place
// and superstep, after the header.
func (m *Machine) StallReport(header string, where func(pid int) Where) []string {
	return m.StallReportOf(header, func(pid int) (Where, int) { return where(pid), m.cores[pid].Superstep() })
}

// StallReportOf is StallReport with each core's place and superstep given
// by place (cores of other processes: the MPI world's headers).
func (m *Machine) StallReportOf(header string, place func(pid int) (Where, int)) []string {
	type key struct {
		w    Where
		step int
	}
	groups := map[key][]int{}
	for _, c := range m.cores {
		w, step := place(c.pid)
		k := key{w, step}
		groups[k] = append(groups[k], c.pid)
	}
	keys := make([]key, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return groups[keys[i]][0] < groups[keys[j]][0] })
	lines := []string{header}
	for _, k := range keys {
		place := k.w.String()
		if k.w == WhereFinished && m.face.Finished != "" {
			place = m.face.Finished
		}
		lines = append(lines, fmt.Sprintf("  %s %s (superstep %d)", pidList(groups[k]), place, k.step))
	}
	return lines
}

// pidList formats sorted pids compactly: "core 03" or "cores 00-02,05".
func pidList(pids []int) string {
	var parts []string
	for i := 0; i < len(pids); {
		j := i
		for j+1 < len(pids) && pids[j+1] == pids[j]+1 {
			j++
		}
		if i == j {
			parts = append(parts, fmt.Sprintf("%02d", pids[i]))
		} else {
			parts = append(parts, fmt.Sprintf("%02d-%02d", pids[i], pids[j]))
		}
		i = j + 1
	}
	noun := "cores"
	if len(pids) == 1 {
		noun = "core"
	}
	return noun + " " + strings.Join(parts, ",")
}
