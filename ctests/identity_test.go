package ctests

// TestThreadIdentity: a BSP process is a thread of its own under every
// scheduler (ctests/bsplib/conform_identity, with the dlopen'ed library of
// ctests/identity): the program built at -O0, -O2 and -O3 (at -O2 gcc keeps
// a thread-local variable's address in a register across bsp_sync) runs at
// P = 2, 8, 16 and 64 under each setting of stressSettings, once, or a
// quarter of EBSP_CTEST_REPEAT times (make stress: 48 programs a round, 50
// rounds at its default of 200, 5 in make test).

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestThreadIdentity(t *testing.T) {
	root := repoRoot(t)
	dir := filepath.Join(root, "ctests", "bsplib", "conform_identity")
	runs := max(stressRuns()/4, 1)
	lib := filepath.Join(t.TempDir(), "libdltls.so")
	gcc(t, append([]string{"-shared", "-fPIC", "-O2", filepath.Join(root, "ctests", "identity", "dltls.c"), "-o", lib},
		strings.Fields(os.Getenv("EBSP_CTEST_CFLAGS"))...)...)
	meshes := []struct {
		mesh  string
		cores int
	}{{"1x2", 2}, {"2x4", 8}, {"4x4", 16}, {"8x8", 64}}
	for _, opt := range []string{"-O0", "-O2", "-O3"} {
		t.Run(opt, func(t *testing.T) {
			t.Parallel()
			bin := buildBSPlib(t, root, dir, []string{opt}, true)
			for _, m := range meshes {
				want := ""
				for i := range m.cores {
					want += fmt.Sprintf("core %d: thread identity ok\n", i)
				}
				for _, set := range stressSettings {
					env := append([]string{"EBSP_MESH=" + m.mesh}, set.env...)
					failed, first := runsFailing(t, bin, []string{lib}, env, want, runs)
					if failed > 0 {
						t.Errorf("P=%d %s: %d of %d runs failed; the first:\n%s", m.cores, set.name, failed, runs, first)
					}
				}
			}
		})
	}
}
