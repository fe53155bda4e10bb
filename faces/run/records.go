package run

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"libebsp/engine"
	"libebsp/env"
)

// Records are the statistics and trace of a program's runs: where the
// current run's go (EBSP_STATS: "1", a table, or a .json file that gets
// one line per run; EBSP_TRACE: a file rewritten after each run), and the
// trace's events of the runs so far, on one clock from the first.
type Records struct {
	statsTo   string
	traceTo   string
	trace     []any
	traceZero time.Time
}

// Read reads EBSP_STATS and EBSP_TRACE for the next run; an EBSP_STATS
// that cannot be used is returned (and what is used instead kept).
func (r *Records) Read(get env.Getenv) error {
	var err error
	r.statsTo, err = env.StatsOf(get)
	r.traceTo = env.TraceOf(get)
	return err
}

// On tells whether the next run keeps statistics (engine.Machine.SetStats):
// for its table, its JSON line or its trace.
func (r *Records) On() bool { return (r.statsTo != "" && r.statsTo != "0") || r.traceTo != "" }

func (r *Records) reportStats(lib Library, sum engine.RunSummary) {
	if !strings.HasSuffix(r.statsTo, ".json") {
		lib.Report(sum.Table())
		return
	}
	f, err := os.OpenFile(r.statsTo, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err == nil {
		_, err = f.Write(append(sum.JSON(), '\n'))
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		lib.Complain(fmt.Sprintf("%s=%q: %v; this run's statistics are not written", engine.StatsEnv, r.statsTo, unwrapPath(err)))
	}
}

func (r *Records) writeTrace(lib Library, m *engine.Machine) {
	if r.trace == nil {
		r.traceZero = m.RunStartedAt()
	}
	offset := float64(m.RunStartedAt().Sub(r.traceZero).Nanoseconds()) / 1e3
	r.trace = append(r.trace, m.TraceEvents(offset)...)
	b, err := json.Marshal(map[string]any{"traceEvents": r.trace, "displayTimeUnit": "ns"})
	if err == nil {
		err = os.WriteFile(r.traceTo, b, 0o644)
	}
	if err != nil {
		lib.Complain(fmt.Sprintf("%s=%q: %v; the trace is not written", engine.TraceEnv, r.traceTo, unwrapPath(err)))
	}
}

// unwrapPath drops the file name from an error of package os: the
// message names the variable and its value (the file) already.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("cannot %s it: %w", pe.Op, pe.Err)
	}
	return err
}
