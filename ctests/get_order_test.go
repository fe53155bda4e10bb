package ctests

import (
	"os"
	"path/filepath"
	"testing"
)

// conform_get_order (gets whose destinations overlap land in the order of
// issue) at the default level, where a core's gets go through the C
// shim's direct log or, some of them (its pattern "mixed"), the engine's;
// and in the modes where every get goes through the engine: strict
// checks, the copying world, statistics. TestBSPlibUnderMPI runs it across
// ranks.
func TestGetOrderModes(t *testing.T) {
	root := repoRoot(t)
	dir := filepath.Join(root, "ctests", "bsplib", "conform_get_order")
	bin := buildBSPlib(t, root, dir, nil, true)
	want, err := os.ReadFile(filepath.Join(dir, "expected"))
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"EBSP_CHECKS=board", "EBSP_CHECKS=strict", "EBSP_WORLD=copy", "EBSP_STATS=1"} {
		for _, sched := range schedulers() {
			t.Run(mode+"/"+sched, func(t *testing.T) {
				env := append(readEnv(t, dir), mode, "EBSP_SCHED="+sched)
				stdout, stderr, code := runProgram(t, bin, nil, env)
				if code != 0 || Canonical(stdout) != Canonical(string(want)) {
					t.Errorf("exit status %d\nstdout:\n%s\nwant:\n%s\nstderr:\n%s", code, stdout, want, stderr)
				}
			})
		}
	}
}
