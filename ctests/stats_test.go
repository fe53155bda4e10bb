package ctests

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Statistics must not change what a program computes: with EBSP_STATS a
// request takes the path it takes without. Overlapping puts of different
// cores end in the order their senders write them; one worker of
// coroutines runs the cores in the same order in every run, so the
// overlap test's words must end alike with and without statistics.
func TestStatsKeepTheResult(t *testing.T) {
	if !slices.Contains(schedulers(), "coro") {
		t.Skip("needs coroutines, which this build lacks (EBSP_CTEST_SCHED leaves coro out): threads end overlapping puts in any order")
	}
	root := repoRoot(t)
	dir := filepath.Join(root, "ctests", "comm_put_overlap")
	_, bin := buildCase(t, root, dir, filepath.Join(dir, "host_overlap.c"))
	env := []string{"EBSP_SCHED=coro", "EBSP_WORKERS=1", "EBSP_CHECKS=board"}
	plain, stderr, code := runProgram(t, bin, nil, env)
	require.Zero(t, code, "stderr:\n%s", stderr)
	stats := filepath.Join(t.TempDir(), "stats.json")
	counted, stderr, code := runProgram(t, bin, nil, append(env, "EBSP_STATS="+stats))
	require.Zero(t, code, "stderr:\n%s", stderr)
	assert.Equal(t, plain, counted, "the words the cores overlap in, without and with EBSP_STATS")
	assert.Len(t, stepFigures(t, stats), 1, "one run's statistics")
}

// The figures of EBSP_STATS do not depend on the path the requests take:
// the shim's direct path (the default) counts what the engine's path
// (EBSP_CHECKS=strict, which sees every request) counts.
func TestStatsAlikeOnEveryPath(t *testing.T) {
	root := repoRoot(t)
	for _, name := range []string{"conform_bsmp", "conform_drma", "example_inprod", "example_sort"} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(root, "ctests", "bsplib", name)
			bin := buildBSPlib(t, root, dir, readFields(dir, "cflags"), true)
			figures := map[string][][]stepCount{}
			for _, checks := range []string{"board", "strict"} {
				stats := filepath.Join(t.TempDir(), "stats.json")
				env := append(readEnv(t, dir), "EBSP_CHECKS="+checks, "EBSP_STATS="+stats)
				_, stderr, code := runProgram(t, bin, readFields(dir, "args"), env)
				require.Zero(t, code, "EBSP_CHECKS=%s, stderr:\n%s", checks, stderr)
				figures[checks] = stepFigures(t, stats)
			}
			assert.Equal(t, figures["strict"], figures["board"])
			moved := 0
			for _, run := range figures["board"] {
				for _, s := range run {
					moved += s.SentTotal
				}
			}
			assert.NotZero(t, moved, "the program communicates")
		})
	}
}

// stepCount is what EBSP_STATS says a superstep moved.
type stepCount struct {
	SentMax   int `json:"h_sent_max"`
	SentTotal int `json:"sent_total"`
	RecvMax   int `json:"h_recv_max"`
	RecvTotal int `json:"recv_total"`
	Msgs      int `json:"messages"`
	// the board's communication time predicted from the counted traffic
	// (puts, gets, messages, their bytes and hops): no timing in it
	CommUs float64 `json:"board_comm_us"`
}

// stepFigures reads an EBSP_STATS file: one JSON object per run.
func stepFigures(t *testing.T, file string) [][]stepCount {
	t.Helper()
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	var runs [][]stepCount
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var run struct {
			Steps []stepCount `json:"supersteps"`
		}
		require.NoError(t, json.Unmarshal([]byte(line), &run), "%s", line)
		runs = append(runs, run.Steps)
	}
	return runs
}
