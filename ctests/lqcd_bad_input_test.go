package ctests

import (
	"path/filepath"
	"testing"
)

// lqcdBadInput are the C tests of the LQCD API's bad input (issue 33):
// arguments at their extremes, handles that are not channels, calls after
// shutdownMachine, waits no core can end. TestCPrograms runs them at the
// default check level; here they run again with EBSP_CHECKS=strict, under
// both schedulers: the LQCD face must not depend on the check level.
var lqcdBadInput = []string{"lqcd_extremes", "lqcd_deadlock"}

func TestLQCDBadInputStrict(t *testing.T) {
	root := repoRoot(t)
	for _, name := range lqcdBadInput {
		dir := filepath.Join(root, "ctests", name)
		hosts, _ := filepath.Glob(filepath.Join(dir, "host_*.c"))
		if len(hosts) != 1 {
			t.Fatalf("%s: want one host_*.c, found %d", name, len(hosts))
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			build, bin := buildCase(t, root, dir, hosts[0])
			for _, sched := range schedulers() {
				t.Run(sched, func(t *testing.T) {
					run := runDir(t, build)
					env := append([]string{"EBSP_SCHED=" + sched, "EBSP_CHECKS=strict"}, readEnv(t, dir)...)
					checkRun(t, dir, run, filepath.Join(run, filepath.Base(bin)), env)
				})
			}
		})
	}
}
