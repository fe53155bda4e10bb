package ctests

// QMP programs (include/qmp.h, the QMP 2.5 C API): every directory of
// ctests/qmp/ holds one program NAME/NAME.c, built as QMP programs are
// (gcc prog.c $(pkg-config --cflags --libs qmp), PKG_CONFIG_PATH=lib/pkgconfig)
// and run on 16 nodes. TestQMPPrograms runs each in one process
// (EBSP_MESH=4x4) under each scheduler (EBSP_SCHED, see schedulers);
// TestMPIQMPPrograms (make test-mpi) runs it under mpirun in 2x8, 4x4 and
// 16x1 ranks x cores, and once in one process to compare the bits with.
// Files of a program's directory:
//
//	expected  stdout sorted by line, without the "bits" lines (each line
//	          starts "nNN ", NN the node that printed it)
//	args      command-line arguments, split on blanks
//	stdin     what the program reads on stdin (node 0 reads it)
//
// Lines "nNN bits ..." hold sums whose bits depend on the order of the
// additions: they must be the same in every layout; "bits NAME X fold Y"
// says X must be Y, the left fold in node order. The program printing
// checks that no two nodes' lines mix (printingProblems), errors runs once
// per misuse (qmpErrorCases). Every program also checks itself: a failed
// check makes it exit non-zero, with why on stderr.
//
// The QMP face is tested against the default build only: the tests skip
// without lib/pkgconfig/qmp.pc and in the 32-bit runs. ctests/qmp/README.md
// says what QMP 2.5.4 over Open MPI does with each program.

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"
)

// qmpLayout is a way of running 16 QMP nodes: in one process (mpi.ranks
// 0) with env, or under mpirun.
type qmpLayout struct {
	name string
	env  []string
	mpi  mpiLayout
}

// qmpOneProcess are the layouts of one process, one per scheduler.
func qmpOneProcess() []qmpLayout {
	var layouts []qmpLayout
	for _, sched := range schedulers() {
		layouts = append(layouts, qmpLayout{name: "1x16-" + sched, env: []string{"EBSP_MESH=4x4", "EBSP_SCHED=" + sched}})
	}
	return layouts
}

// qmpUnderMPI are the layouts of ranks x cores under mpirun.
func qmpUnderMPI() []qmpLayout {
	var layouts []qmpLayout
	for _, rc := range [][2]int{{2, 8}, {4, 4}, {16, 1}} {
		name := fmt.Sprintf("%dx%d", rc[0], rc[1])
		layouts = append(layouts, qmpLayout{name: name, env: []string{"EBSP_MESH=4x4"},
			mpi: mpiLayout{name: name, ranks: rc[0], cores: rc[1]}})
	}
	return layouts
}

// The misuses of ctests/qmp/errors, each answered by a status or a NULL
// handle and a message on every node.
var qmpErrorCases = []string{"start_null", "wait_null", "msgmem_null", "multiple_null", "relative_no_topology",
	"relative_bad_axis", "send_to_no_node", "topology_twice", "topology_wrong_size", "size_mismatch",
	"comm_null", "sum_array_negative"}

// qmpFlags are pkg-config's flags for module qmp, or a skip when the QMP
// face is not built.
func qmpFlags(t *testing.T, root string) []string {
	t.Helper()
	if os.Getenv("EBSP_CTEST_M32") == "1" {
		t.Skip("the QMP face is tested against the default build (make test-c, test-mpi)")
	}
	pcdir := filepath.Join(libDir(root), "pkgconfig")
	if _, err := os.Stat(filepath.Join(pcdir, "qmp.pc")); err != nil {
		t.Skipf("SKIPPED: %s/qmp.pc does not exist: this build has no QMP face (make lib builds it)", pcdir)
	}
	cmd := exec.Command("pkg-config", "--cflags", "--libs", "qmp")
	cmd.Env = append(os.Environ(), "PKG_CONFIG_PATH="+pcdir)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("pkg-config --cflags --libs qmp (PKG_CONFIG_PATH=%s): %v", pcdir, err)
	}
	return strings.Fields(string(out))
}

// buildQMP compiles ctests/qmp/name/name.c as a QMP program.
func buildQMP(t *testing.T, root, name string, flags []string) string {
	t.Helper()
	dir := filepath.Join(root, "ctests", "qmp")
	bin := filepath.Join(t.TempDir(), name)
	args := []string{"-std=gnu99", "-O1", "-g", "-Wall", "-Wextra", "-Werror", "-I" + dir}
	args = append(args, strings.Fields(os.Getenv("EBSP_CTEST_CFLAGS"))...)
	args = append(append(append(args, filepath.Join(dir, name, name+".c"), "-o", bin), flags...), "-lm")
	gcc(t, args...)
	return bin
}

// qmpTimeout bounds one run: the programs take a few seconds on 16 nodes.
const qmpTimeout = time.Minute

// runQMP runs bin with args in layout l, stdin from the file stdin when it
// is not "" (through sh, so that mpirun hands it to rank 0).
func runQMP(t *testing.T, l qmpLayout, bin string, args []string, stdin string) mpiRun {
	t.Helper()
	command := append([]string{bin}, args...)
	if l.mpi.ranks > 0 {
		command = append([]string{"mpirun"}, mpirunArgs(l.mpi, l.env, bin, args...)...)
	}
	env := l.env
	if l.mpi.ranks > 0 {
		env = nil // passed with -x
	}
	if stdin == "" {
		stdin = os.DevNull
	}
	shell := []string{"-c", `f=$1; shift; exec "$@" < "$f"`, "sh", stdin}
	r := runMPIOnce(t, filepath.Dir(bin), "sh", append(shell, command...), env, qmpTimeout)
	if r.hung {
		t.Fatalf("%s: %s: no end within %v (killed)\nstdout:\n%s\nstderr:\n%s", l.name, strings.Join(command, " "),
			qmpTimeout, clip(r.stdout), clip(r.stderr))
	}
	return r
}

var bitsLine = regexp.MustCompile(`^n\d\d bits `)

// splitBits parts stdout into its sorted lines without the "bits" lines
// and the bits lines.
func splitBits(stdout string) (rest, bits string) {
	var r, b []string
	for _, line := range strings.Split(strings.TrimRight(stdout, "\n"), "\n") {
		if bitsLine.MatchString(line) {
			b = append(b, line)
		} else {
			r = append(r, line)
		}
	}
	sort.Strings(r)
	sort.Strings(b)
	return strings.Join(r, "\n") + "\n", strings.Join(b, "\n")
}

var foldLine = regexp.MustCompile(`^n\d\d bits (\S+) (\S+) fold (\S+)$`)

// foldProblems are the bits lines whose sum is not the left fold in node
// order that the program computed.
func foldProblems(bits string) []string {
	var p []string
	for _, line := range strings.Split(bits, "\n") {
		if m := foldLine.FindStringSubmatch(line); m != nil && m[2] != m[3] {
			p = append(p, fmt.Sprintf("%s: %s, but the left fold in node order is %s", m[1], m[2], m[3]))
		}
	}
	return p
}

var printedLine = regexp.MustCompile(`^(.*)qmp-line node (\d\d) line (\d\d\d) ([a-z]+)$`)

// printingProblems checks the stdout of ctests/qmp/printing: every node's
// lines 0..50 each once, whole (one prefix, then the node's own text), in
// order per node.
func printingProblems(stdout string, nodes int) []string {
	const lines, payload = 50, 300
	var p []string
	next, whole := make([]int, nodes), make([]int, nodes)
	for _, line := range strings.Split(stdout, "\n") {
		if !strings.Contains(line, "qmp-line") {
			continue
		}
		m := printedLine.FindStringSubmatch(line)
		if m == nil || strings.Contains(m[1], "qmp-line") {
			p = append(p, "a line mixes output: "+line)
			continue
		}
		var node, n int
		fmt.Sscanf(m[2]+" "+m[3], "%d %d", &node, &n)
		want := make([]byte, payload)
		for i := range want {
			want[i] = byte('a' + (node*7+n*3+i)%26)
		}
		switch {
		case node >= nodes:
			p = append(p, "a line of node "+m[2])
			continue
		case m[4] != string(want):
			p = append(p, fmt.Sprintf("node %d line %d: its text is not whole: %s", node, n, line))
			continue
		case n != next[node]:
			p = append(p, fmt.Sprintf("node %d: line %d where line %d was due", node, n, next[node]))
		}
		whole[node]++
		next[node] = n + 1
	}
	for node, n := range whole {
		if n != lines+1 {
			p = append(p, fmt.Sprintf("node %d printed %d of its %d lines whole", node, n, lines+1))
		}
	}
	return p
}

// errorsExpected is the stdout of ctests/qmp/errors for one case.
func errorsExpected(name string, nodes int) string {
	var w []string
	for n := 0; n < nodes; n++ {
		w = append(w, fmt.Sprintf("n%02d %s: refused", n, name))
	}
	w = append(w, "n00 failed checks 0")
	sort.Strings(w)
	return strings.Join(w, "\n") + "\n"
}

func TestQMPPrograms(t *testing.T) { qmpPrograms(t, qmpOneProcess()) }

func TestMPIQMPPrograms(t *testing.T) {
	needMPI(t)
	qmpPrograms(t, append(qmpOneProcess()[:1], qmpUnderMPI()...))
}

// qmpPrograms runs every program of ctests/qmp in layouts, and compares
// their bits lines across the layouts.
func qmpPrograms(t *testing.T, layouts []qmpLayout) {
	root := repoRoot(t)
	flags := qmpFlags(t, root)
	sources, _ := filepath.Glob(filepath.Join(root, "ctests", "qmp", "*", "*.c"))
	if len(sources) == 0 {
		t.Fatal("no QMP programs in ctests/qmp")
	}
	for _, src := range sources {
		name := filepath.Base(filepath.Dir(src))
		if name == "errors" {
			continue
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Dir(src)
			bin := buildQMP(t, root, name, flags)
			stdin := ""
			if exists(dir, "stdin") {
				stdin = filepath.Join(dir, "stdin")
			}
			bitsOf := map[string]string{}
			for _, l := range layoutsFor(dir, layouts) {
				r := runQMP(t, l, bin, readFields(dir, "args"), stdin)
				bitsOf[l.name] = checkQMPRun(t, l.name, name, dir, r)
			}
			compareBits(t, layouts[0].name, bitsOf)
		})
	}
}

// layoutsFor keeps make test within its time: a program whose sums
// depend on the order of addition (it prints "bits" lines) runs in every
// layout, the others in the first two (one process, 2x8), and in all
// under make stress-mpi (EBSP_CTEST_REPEAT set).
func layoutsFor(dir string, layouts []qmpLayout) []qmpLayout {
	if len(layouts) <= 2 || stressRuns() > 0 {
		return layouts
	}
	sources, _ := filepath.Glob(filepath.Join(dir, "*.c"))
	for _, src := range sources {
		if b, err := os.ReadFile(src); err == nil && bytes.Contains(b, []byte("bits")) {
			return layouts
		}
	}
	return layouts[:2]
}

// checkQMPRun reports how run r of program name in layout differs from its
// expectations, and returns its bits lines.
func checkQMPRun(t *testing.T, layout, name, dir string, r mpiRun) string {
	t.Helper()
	var problems []string
	if r.code != 0 {
		problems = append(problems, fmt.Sprintf("exit status %d, want 0", r.code))
	}
	got, bits := splitBits(r.stdout)
	switch name {
	case "printing":
		problems = append(problems, printingProblems(r.stdout, 16)...)
	default:
		want, err := os.ReadFile(filepath.Join(dir, "expected"))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got != string(want) {
			problems = append(problems, fmt.Sprintf("stdout (sorted, without bits lines) differs\n--- got\n%s--- want\n%s", got, want))
		}
		problems = append(problems, foldProblems(bits)...)
	}
	if len(problems) > 0 {
		if len(problems) > 10 {
			problems = append(problems[:10], fmt.Sprintf("and %d more", len(problems)-10))
		}
		t.Errorf("%s:\n%s\n--- stdout\n%s--- stderr\n%s", layout, strings.Join(problems, "\n"), clip(r.stdout), clip(r.stderr))
	}
	return bits
}

// clip is s, or its first 4000 bytes and the number left out.
func clip(s string) string {
	const most = 4000
	if len(s) <= most {
		return s
	}
	return fmt.Sprintf("%s\n[... %d more bytes]\n", s[:most], len(s)-most)
}

// compareBits reports layouts whose bits lines differ from those of the
// layout first.
func compareBits(t *testing.T, first string, bitsOf map[string]string) {
	for layout, bits := range bitsOf {
		if bits != bitsOf[first] {
			t.Errorf("the bits of the sums differ: %s\n%s\n%s\n%s", first, bitsOf[first], layout, bits)
		}
	}
}

// TestQMPErrors runs ctests/qmp/errors once per misuse, in one process
// under each scheduler; TestMPIQMPErrors under mpirun in 2x8.
func TestQMPErrors(t *testing.T) { qmpErrors(t, qmpOneProcess()) }

func TestMPIQMPErrors(t *testing.T) {
	needMPI(t)
	qmpErrors(t, qmpUnderMPI()[:1])
}

func qmpErrors(t *testing.T, layouts []qmpLayout) {
	root := repoRoot(t)
	bin := buildQMP(t, root, "errors", qmpFlags(t, root))
	for _, c := range qmpErrorCases {
		t.Run(c, func(t *testing.T) {
			t.Parallel()
			for _, l := range layouts {
				r := runQMP(t, l, bin, []string{c}, "")
				if got, _ := splitBits(r.stdout); r.code != 0 || got != errorsExpected(c, 16) {
					t.Errorf("%s: exit status %d (want 0), stdout (sorted):\n%s--- want\n%s--- stderr\n%s",
						l.name, r.code, clip(got), errorsExpected(c, 16), clip(r.stderr))
				}
			}
		})
	}
}
