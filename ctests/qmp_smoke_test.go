package ctests

import (
	"os"
	"path/filepath"
	"testing"
)

// qmpSmokeArgs: -qmp-geom is QMP's, taken out of argv; "last" stays.
var qmpSmokeArgs = []string{"-qmp-geom", "4", "4", "last"}

// qmpSmoke builds ctests/qmp_smoke as QMP programs are built (-rdynamic,
// as `pkg-config --libs qmp` links) and returns it with its expected output.
func qmpSmoke(t *testing.T) (bin, want string) {
	t.Helper()
	root := repoRoot(t)
	dir := filepath.Join(root, "ctests", "qmp_smoke")
	b, err := os.ReadFile(filepath.Join(dir, "expected"))
	if err != nil {
		t.Fatal(err)
	}
	return buildBSPlib(t, root, dir, nil, true), string(b)
}

// TestQMPSmoke runs the QMP smoke program on 16 nodes in one process.
func TestQMPSmoke(t *testing.T) {
	bin, want := qmpSmoke(t)
	for _, sched := range schedulers() {
		t.Run(sched, func(t *testing.T) {
			stdout, stderr, code := runProgram(t, bin, qmpSmokeArgs, []string{"EBSP_SCHED=" + sched})
			if code != 0 || stdout != want || stderr != "" {
				t.Errorf("exit status %d\nstdout:\n%s--- want\n%s--- stderr\n%s", code, stdout, want, stderr)
			}
		})
	}
}

// TestMPIQMPSmoke runs it under mpirun in the layouts 2 x 8, 4 x 4 and
// 16 x 1: the same output, the sum's bits included.
func TestMPIQMPSmoke(t *testing.T) {
	needMPI(t)
	bin, want := qmpSmoke(t)
	for _, l := range []mpiLayout{{name: "2x8", ranks: 2, cores: 8}, {name: "4x4", ranks: 4, cores: 4},
		{name: "16x1", ranks: 16, cores: 1}} {
		t.Run(l.name, func(t *testing.T) {
			stdout, stderr, code := runMPI(t, filepath.Dir(bin), "mpirun", mpirunArgs(l, nil, bin, qmpSmokeArgs...), nil)
			if code != 0 || stdout != want {
				t.Errorf("exit status %d\nstdout:\n%s--- want\n%s--- stderr\n%s", code, stdout, want, stderr)
			}
		})
	}
}
