package ctests

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTraceFile runs trace_runs with EBSP_TRACE and checks the Chrome Trace
// Event file: it parses, every core of both runs has a track, each track's
// spans follow one another without overlap, and every superstep is there
// (four syncs, then bsp_end).
func TestTraceFile(t *testing.T) {
	root := repoRoot(t)
	build := t.TempDir()
	dir := filepath.Join(root, "ctests", "trace_runs")
	inc := "-I" + filepath.Join(root, "include")
	libdir := libDir(root)
	extra := strings.Fields(os.Getenv("EBSP_CTEST_CFLAGS")) // e.g. -fsanitize=address under make test-asan
	gcc(t, append([]string{inc, "-shared", "-fPIC", filepath.Join(dir, "e_trace.c"), "-o", filepath.Join(build, "e_trace.elf")}, extra...)...)
	gcc(t, append([]string{inc, filepath.Join(dir, "host_trace.c"), "-o", filepath.Join(build, "host_trace"), "-L" + libdir, "-Wl,-rpath," + libdir, "-lebsp"}, extra...)...)
	trace := filepath.Join(build, "run.json")
	cmd := exec.Command(filepath.Join(build, "host_trace"))
	cmd.Dir = build
	cmd.Env = append(os.Environ(), "EBSP_TRACE="+trace, "EBSP_MESH=4x4")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)

	raw, err := os.ReadFile(trace)
	require.NoError(t, err)
	var file struct {
		TraceEvents []struct {
			Name string         `json:"name"`
			Ph   string         `json:"ph"`
			Ts   float64        `json:"ts"`
			Dur  float64        `json:"dur"`
			Pid  int            `json:"pid"`
			Tid  int            `json:"tid"`
			Args map[string]any `json:"args"`
		} `json:"traceEvents"`
	}
	require.NoError(t, json.Unmarshal(raw, &file))

	type track struct{ run, core int }
	spans := map[track][]string{}
	end := map[track]float64{}
	counters := map[int]int{}
	for _, e := range file.TraceEvents {
		switch e.Ph {
		case "X":
			k := track{e.Pid, e.Tid}
			assert.GreaterOrEqual(t, e.Dur, 0.0, "%+v", e)
			assert.GreaterOrEqual(t, e.Ts+0.001, end[k], "span %s of core %d overlaps the one before", e.Name, e.Tid)
			end[k] = e.Ts + e.Dur
			spans[k] = append(spans[k], e.Name)
		case "C":
			counters[e.Pid]++
		}
	}
	want := []string{"compute", "bsp_sync", "compute", "bsp_sync", "compute", "bsp_sync", "compute", "bsp_sync", "compute", "bsp_end"}
	for run := 1; run <= 2; run++ {
		for core := range 4 {
			assert.Equal(t, want, spans[track{run, core}], "run %d core %d", run, core)
		}
		assert.Equal(t, 5, counters[run], "one counter per superstep, run %d", run)
	}
	assert.Len(t, spans, 8, "4 cores x 2 runs, no more")
}
