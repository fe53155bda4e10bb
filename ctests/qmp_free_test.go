package ctests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestQMPFreeLoop runs ctests/qmp_free/free_loop.c on 2 nodes in one
// process under each scheduler: 100,000 rounds that each declare, use and
// free a send and a receive handle. The process's resident memory must
// stay bounded (the program checks it: freed handles give their LQCD
// channels back), and every message must arrive although the face's
// channel names wrap.
func TestQMPFreeLoop(t *testing.T) {
	root := repoRoot(t)
	flags := qmpFlags(t, root)
	bin := filepath.Join(t.TempDir(), "free_loop")
	args := []string{"-std=gnu99", "-O1", "-g", "-Wall", "-Wextra", "-Werror"}
	args = append(args, strings.Fields(os.Getenv("EBSP_CTEST_CFLAGS"))...)
	gcc(t, append(append(args, filepath.Join(root, "ctests", "qmp_free", "free_loop.c"), "-o", bin), flags...)...)
	for _, sched := range schedulers() {
		t.Run(sched, func(t *testing.T) {
			stdout, stderr, code := runProgram(t, bin, nil, []string{"EBSP_MESH=1x2", "EBSP_SCHED=" + sched})
			if code != 0 || !strings.Contains(stdout, "failed rounds 0\n") || stderr != "" {
				t.Errorf("exit status %d\nstdout:\n%s--- stderr\n%s", code, stdout, stderr)
			}
		})
	}
}
