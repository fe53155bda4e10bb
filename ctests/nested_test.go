package ctests

// TestNestedSections: MulticoreBSP's nested SPMD sections
// (ctests/bsplib/conform_nested: several outer cores nesting at once, a
// third level, DRMA and messages inside, the outer state after, thread
// identity) under each setting of stressSettings, once, or
// EBSP_CTEST_REPEAT times (make stress); the failed runs per setting are
// logged (go test -v) and any failure is an error. TestBSPlibPrograms
// runs the program once per scheduler as well.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestNestedSections(t *testing.T) {
	root := repoRoot(t)
	dir := filepath.Join(root, "ctests", "bsplib", "conform_nested")
	runs := max(stressRuns(), 1)
	want, err := os.ReadFile(filepath.Join(dir, "expected"))
	if err != nil {
		t.Fatal(err)
	}
	bin := buildBSPlib(t, root, dir, readFields(dir, "cflags"), true)
	for _, set := range stressSettings {
		env := append(append([]string(nil), set.env...), readEnv(t, dir)...)
		failed, first := runsFailing(t, bin, nil, env, string(want), runs)
		t.Logf("%-12s %4d/%d failed", set.name, failed, runs)
		if failed > 0 {
			t.Errorf("%s: %d of %d runs failed; the first:\n%s", set.name, failed, runs, first)
		}
	}
}

// runsFailing runs bin runs times and counts the runs that did not exit 0
// with an empty stderr and want on stdout (lines in any order); first
// describes the first of them.
func runsFailing(t *testing.T, bin string, args, env []string, want string, runs int) (failed int, first string) {
	t.Helper()
	for range runs {
		stdout, stderr, code := runProgram(t, bin, args, env)
		if code != 0 || stderr != "" || sortedLines(stdout) != sortedLines(want) {
			if failed++; first == "" {
				first = fmt.Sprintf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
		}
	}
	return failed, first
}

// TestMPINestedRefused: under mpirun a core's bsp_init inside a section is
// refused (nested sections run in one process), and the job ends with
// exit status 1.
func TestMPINestedRefused(t *testing.T) {
	needMPI(t)
	root := repoRoot(t)
	dir := filepath.Join(root, "ctests", "bsplib", "conform_nested")
	bin := buildBSPlib(t, root, dir, readFields(dir, "cflags"), true)
	args := mpirunArgs(mpiLayout{name: "ranks", ranks: 2, cores: 4}, readEnv(t, dir), bin)
	_, stderr, code := runMPI(t, filepath.Dir(bin), "mpirun", args, nil)
	const want = "BSP ERROR: bsp_init: called inside an SPMD section under mpirun: nested SPMD sections run in one process only"
	if code != 1 || !strings.Contains(stderr, want) {
		t.Errorf("exit status %d, want 1, and stderr with %q:\n%s", code, want, stderr)
	}
}
