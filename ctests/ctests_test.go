// Package ctests runs the C test programs: each directory holds one host
// program (host_*.c) and its kernels (e_*.c), built with gcc against the
// built library (make lib), run, and compared with the expectations.
//
// Files of a test directory:
//
//	host_*.c          the host program (exactly one)
//	e_*.c             kernels, each built as e_*.elf beside the host binary
//	expected          expected stdout, compared after canonicalisation
//	expected_stderr   optional: expected stderr (exact, after trimming)
//	env               optional: KEY=VALUE lines added to the environment
//	exit              optional: expected exit status (default 0; 128+N for signal N)
//	ordered           optional: compare stdout exactly, without canonicalising
//	heavy             optional: runs alone (many threads or long), not beside
//	                  the other tests, so that neither starves the other
//	m32               optional: host and kernels are built with -m32 against
//	                  the 32-bit library (make lib32), as on the board, where
//	                  pointers fit in int and unsigned
//	stress            optional: the outcome depends on the order in which
//	                  the cores run (registration races, DMA timing, stream
//	                  hand-over, LQCD waits, resting workers); its text says
//	                  why. TestStress (make stress) runs it many times.
//
// EBSP_CTEST_LIBDIR (default lib) picks the library build to test against and
// EBSP_CTEST_CFLAGS adds flags to every gcc command: `make test-asan` uses
// them to run the tests against an AddressSanitizer build. The 32-bit tests
// use EBSP_CTEST_LIB32DIR (default lib32) and EBSP_CTEST_CFLAGS32 instead.
// EBSP_CTEST_M32=1 builds every test the 32-bit way (`make test-c32`).
//
// Each test runs once per scheduler, as subtests TestCPrograms/<dir>/threads
// and .../coro (EBSP_SCHED): EBSP_CTEST_SCHED=threads or =coro runs only
// one (the 32-bit and ASan builds have no coroutines: there coro would run
// threads again). A test's env file may pin EBSP_SCHED itself.
//
// TestStress runs the tests marked stress EBSP_CTEST_REPEAT times under each
// scheduler setting (stressSettings), each built once, and prints how many
// runs of each failed; without EBSP_CTEST_REPEAT it is skipped.
//
// Canonicalisation: within every run of consecutive "$PP: " lines, the lines
// are sorted by pid, keeping each core's own order. Host lines stay where
// they are. "{DIR}" in expectations stands for the build directory; where an
// expectation (expected or expected_stderr) holds "{ADDR}", every address
// in that output (0x and at least five hex digits) is compared as "{ADDR}".
package ctests

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

var (
	coreLine = regexp.MustCompile(`^\$(\d+): `)
	address  = regexp.MustCompile(`0x[0-9a-f]{5,}`)
)

// Canonical sorts each block of consecutive core lines by pid, stably.
func Canonical(out string) string {
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	for i := 0; i < len(lines); {
		j := i
		for j < len(lines) && coreLine.MatchString(lines[j]) {
			j++
		}
		block := lines[i:j]
		sort.SliceStable(block, func(a, b int) bool { return pidOf(block[a]) < pidOf(block[b]) })
		if j == i {
			j++
		}
		i = j
	}
	return strings.Join(lines, "\n") + "\n"
}

func pidOf(line string) int {
	m := coreLine.FindStringSubmatch(line)
	v, _ := strconv.Atoi(m[1])
	return v
}

// stressRuns is EBSP_CTEST_REPEAT, how many times make stress and make
// stress-mpi ask a repeated test to run each case, or 0 when it is unset.
func stressRuns() int {
	runs, _ := strconv.Atoi(os.Getenv("EBSP_CTEST_REPEAT"))
	return max(runs, 0)
}

// requireStressRuns is stressRuns for a test that runs only when repeated:
// without EBSP_CTEST_REPEAT it skips t, naming target, the make target that
// sets it.
func requireStressRuns(t *testing.T, target string) int {
	t.Helper()
	runs := stressRuns()
	if runs == 0 {
		t.Skipf("EBSP_CTEST_REPEAT is not set (%s sets it)", target)
	}
	return runs
}

func repoRoot(t *testing.T) string {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// A build of the library to test against: where it is and the extra gcc
// flags of its hosts and kernels.
type libBuild struct {
	libdir string
	cflags []string
	make   string // the make target that builds it
}

func dirFromEnv(root, name, def string) string {
	d := os.Getenv(name)
	if d == "" {
		d = def
	}
	if filepath.IsAbs(d) {
		return d
	}
	return filepath.Join(root, d)
}

// libDir is the directory of the default library build (EBSP_CTEST_LIBDIR).
func libDir(root string) string { return dirFromEnv(root, "EBSP_CTEST_LIBDIR", "lib") }

// buildFor picks the library a test dir runs against: the 32-bit one for
// tests marked m32 (or all, with EBSP_CTEST_M32=1), else the default.
func buildFor(t *testing.T, root, dir string) libBuild {
	b := libBuild{libdir: libDir(root),
		cflags: strings.Fields(os.Getenv("EBSP_CTEST_CFLAGS")), make: "make lib"}
	if _, err := os.Stat(filepath.Join(dir, "m32")); err == nil || os.Getenv("EBSP_CTEST_M32") == "1" {
		b = libBuild{libdir: dirFromEnv(root, "EBSP_CTEST_LIB32DIR", "lib32"),
			cflags: append([]string{"-m32"}, strings.Fields(os.Getenv("EBSP_CTEST_CFLAGS32"))...), make: "make lib32"}
		if !canRun32(root) {
			t.Skip("this kernel cannot run 32-bit programs (tools/can-run-m32)")
		}
	}
	if _, err := os.Stat(filepath.Join(b.libdir, "libebsp.so")); err != nil {
		t.Fatalf("%s/libebsp.so not built: run `%s` first (%v)", b.libdir, b.make, err)
	}
	return b
}

var run32 struct {
	once sync.Once
	ok   bool
}

// canRun32 tells whether gcc -m32 programs run here: some VMs are built
// without IA32 emulation.
func canRun32(root string) bool {
	run32.once.Do(func() { run32.ok = exec.Command(filepath.Join(root, "tools", "can-run-m32")).Run() == nil })
	return run32.ok
}

func TestCPrograms(t *testing.T) {
	root := repoRoot(t)
	dirs, err := filepath.Glob(filepath.Join(root, "ctests", "*", "host_*.c"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no C tests found (%v)", err)
	}
	for _, host := range dirs {
		dir := filepath.Dir(host)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			if _, err := os.Stat(filepath.Join(dir, "heavy")); err != nil {
				t.Parallel() // runs after the heavy ones, two at a time
			}
			runCase(t, root, dir, host)
		})
	}
}

func gcc(t *testing.T, args ...string) {
	t.Helper()
	cmd := exec.Command("gcc", args...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gcc %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

func runCase(t *testing.T, root, dir, host string) {
	build, bin := buildCase(t, root, dir, host)
	for _, sched := range schedulers() {
		t.Run(sched, func(t *testing.T) {
			run := runDir(t, build)
			env := append([]string{"EBSP_SCHED=" + sched}, readEnv(t, dir)...)
			checkRun(t, dir, run, filepath.Join(run, filepath.Base(bin)), env)
		})
	}
}

// buildCase builds a test's kernels and host into a new directory; it
// returns the directory and the host binary.
func buildCase(t *testing.T, root, dir, host string) (string, string) {
	lib := buildFor(t, root, dir)
	build := t.TempDir()
	inc := "-I" + filepath.Join(root, "include")
	// -funsigned-char: char is unsigned on the board (ARM host and Epiphany
	// cores), and ebsp.pc's Cflags carry the same flag.
	cflags := []string{"-std=gnu99", "-funsigned-char", "-O1", "-g", "-Wall", "-Wextra", "-Werror", inc}
	cflags = append(cflags, lib.cflags...)
	kernels, _ := filepath.Glob(filepath.Join(dir, "e_*.c"))
	for _, k := range kernels {
		out := filepath.Join(build, strings.TrimSuffix(filepath.Base(k), ".c")+".elf")
		gcc(t, append(cflags, "-shared", "-fPIC", k, "-o", out)...)
	}
	bin := filepath.Join(build, strings.TrimSuffix(filepath.Base(host), ".c"))
	gcc(t, append(cflags, host, "-o", bin, "-L"+lib.libdir, "-Wl,-rpath,"+lib.libdir, "-lebsp", "-lm")...)
	return build, bin
}

// runDir is a copy of a test's build to run it in: some tests change their
// directory (kernelpath moves its kernel).
func runDir(t *testing.T, build string) string {
	run := t.TempDir()
	copyFiles(t, build, run)
	return run
}

// copyFiles copies the regular files of directory from into directory to.
func copyFiles(t *testing.T, from, to string) {
	t.Helper()
	entries, err := os.ReadDir(from)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(from, e.Name()))
		if err == nil {
			err = os.WriteFile(filepath.Join(to, e.Name()), b, 0o755)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// schedulers are the EBSP_SCHED values every C test runs under.
func schedulers() []string {
	if s := os.Getenv("EBSP_CTEST_SCHED"); s != "" {
		return strings.Split(s, ",")
	}
	return []string{"threads", "coro"}
}

// checkRun runs a built test and compares what it did with the expectations.
func checkRun(t *testing.T, dir, build, bin string, env []string) {
	for _, diff := range compareRun(t, dir, build, bin, env) {
		t.Error(diff)
	}
}

// compareRun runs a built test once; it returns how what it did differs
// from the expectations, nothing when it passed.
func compareRun(t *testing.T, dir, build, bin string, env []string) []string {
	var diffs []string
	stdout, stderr, code := runProgram(t, bin, nil, env)
	wantCode := 0
	if b, err := os.ReadFile(filepath.Join(dir, "exit")); err == nil {
		wantCode, _ = strconv.Atoi(strings.TrimSpace(string(b)))
	}
	expand := func(s string) string { return strings.ReplaceAll(s, "{DIR}", build) }
	if code != wantCode {
		diffs = append(diffs, fmt.Sprintf("exit status %d, want %d\nstdout:\n%s\nstderr:\n%s", code, wantCode, stdout, stderr))
	}
	want, err := os.ReadFile(filepath.Join(dir, "expected"))
	if err != nil {
		t.Fatalf("missing expected: %v\nstdout was:\n%s", err, stdout)
	}
	got, exp := stdout, expand(string(want))
	if strings.Contains(exp, "{ADDR}") {
		got = address.ReplaceAllString(got, "{ADDR}")
	}
	if _, err := os.Stat(filepath.Join(dir, "ordered")); err != nil {
		got, exp = Canonical(got), Canonical(exp)
	}
	if got != exp {
		diffs = append(diffs, fmt.Sprintf("stdout differs\n--- got\n%s--- want\n%s--- stderr\n%s", got, exp, stderr))
	}
	if want, err := os.ReadFile(filepath.Join(dir, "expected_stderr")); err == nil {
		g, w := strings.TrimSpace(stderr), strings.TrimSpace(expand(string(want)))
		if strings.Contains(w, "{ADDR}") {
			g = address.ReplaceAllString(g, "{ADDR}")
		}
		if g != w {
			diffs = append(diffs, fmt.Sprintf("stderr differs\n--- got\n%s\n--- want\n%s", g, w))
		}
	} else if stderr != "" {
		diffs = append(diffs, fmt.Sprintf("unexpected stderr:\n%s", stderr))
	}
	return diffs
}

// programTimeout bounds one run of a test program: the slowest take a few
// seconds, the watchdog tests about ten.
const programTimeout = 3 * time.Minute

// runProgram runs bin with args and extra environment; it returns stdout,
// stderr and the exit status as a shell reports it.
func runProgram(t *testing.T, bin string, args, env []string) (string, string, int) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	var err error
	// A binary written just before (copyFiles) can be held open for writing
	// by a child another parallel test forked at that moment: exec then
	// fails with ETXTBSY until that child has exec'ed too (golang.org/issue/22315).
	hung := false
	for try := 0; ; try++ {
		cmd := exec.Command(bin, args...)
		cmd.Dir = filepath.Dir(bin)
		cmd.Env = append(os.Environ(), env...)
		stdout.Reset()
		stderr.Reset()
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err = cmd.Start(); err == nil {
			// a program that hangs fails here with what it printed, not
			// the whole package at go test's 10-minute limit
			timer := time.AfterFunc(programTimeout, func() {
				hung = true
				cmd.Process.Signal(syscall.SIGKILL)
			})
			err = cmd.Wait()
			timer.Stop()
		}
		if hung {
			t.Fatalf("%s %v: no end within %v (killed)\nstdout:\n%s\nstderr:\n%s", bin, args, programTimeout, stdout.String(), stderr.String())
		}
		if !errors.Is(err, syscall.ETXTBSY) || try == 50 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	code := 0
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		code = exitErr.ExitCode()
		if ws, ok := exitErr.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			code = 128 + int(ws.Signal())
		}
	} else if errors.Is(err, syscall.ENOEXEC) {
		// an -m32 test on a kernel built without IA-32 emulation
		t.Skipf("run %s: %v: this kernel cannot run the binary", bin, err)
	} else if err != nil {
		t.Fatalf("run %s: %v", bin, err)
	}
	return stdout.String(), stderr.String(), code
}

func readEnv(t *testing.T, dir string) []string {
	b, err := os.ReadFile(filepath.Join(dir, "env"))
	if err != nil {
		return nil
	}
	var env []string
	for _, line := range strings.Split(string(b), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			env = append(env, line)
		}
	}
	return env
}

func TestCanonical(t *testing.T) {
	in := "host a\n$02: x\n$00: y\n$02: z\nhost b\n$01: q\n$00: r\n"
	want := "host a\n$00: y\n$02: x\n$02: z\nhost b\n$00: r\n$01: q\n"
	if got := Canonical(in); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

// stressSettings are the scheduler settings TestStress runs each test
// under: the coroutine scheduler with its resting workers on their own
// (EBSP_REST unset), always tried (1) and never (0), and a thread per core.
var stressSettings = []struct {
	name string
	env  []string
}{
	{"coro", []string{"EBSP_SCHED=coro"}},
	{"coro REST=1", []string{"EBSP_SCHED=coro", "EBSP_REST=1"}},
	{"coro REST=0", []string{"EBSP_SCHED=coro", "EBSP_REST=0"}},
	{"threads", []string{"EBSP_SCHED=threads"}},
}

func TestStress(t *testing.T) {
	runs := requireStressRuns(t, "make stress")
	root := repoRoot(t)
	hosts, err := filepath.Glob(filepath.Join(root, "ctests", "*", "host_*.c"))
	if err != nil || len(hosts) == 0 {
		t.Fatalf("no C tests found (%v)", err)
	}
	var mu sync.Mutex
	var rows []string
	t.Run("tests", func(t *testing.T) {
		for _, host := range hosts {
			dir := filepath.Dir(host)
			if _, err := os.Stat(filepath.Join(dir, "stress")); err != nil {
				continue
			}
			name := filepath.Base(dir)
			t.Run(name, func(t *testing.T) {
				if _, err := os.Stat(filepath.Join(dir, "heavy")); err != nil {
					t.Parallel() // after the heavy ones, two at a time
				}
				build, bin := buildCase(t, root, dir, host)
				own := readEnv(t, dir)
				for _, set := range stressSettings {
					run := runDir(t, build)
					exe := filepath.Join(run, filepath.Base(bin))
					env := append(append([]string(nil), set.env...), own...)
					failed, first := 0, ""
					for range runs {
						if diffs := compareRun(t, dir, run, exe, env); len(diffs) > 0 {
							if failed++; first == "" {
								first = strings.Join(diffs, "\n")
							}
						}
					}
					row := fmt.Sprintf("%-24s %-12s %4d/%d failed", name, set.name, failed, runs)
					if pinned := overridden(set.env, own); pinned != "" {
						row += " (its env sets " + pinned + ")"
					}
					mu.Lock()
					rows = append(rows, row)
					mu.Unlock()
					if failed > 0 {
						t.Errorf("%s: %d of %d runs failed; the first:\n%s", set.name, failed, runs, first)
					}
				}
			})
		}
	})
	sort.Strings(rows)
	// printed, not logged: make stress shows the counts when all pass too
	fmt.Printf("make stress: %d runs of each test per setting\n%s\n", runs, strings.Join(rows, "\n"))
}

// overridden names the variables of setting that a test's own env sets
// again (it wins: it comes later in the environment).
func overridden(setting, own []string) string {
	var keys []string
	for _, s := range setting {
		key, _, _ := strings.Cut(s, "=")
		for _, o := range own {
			if k, _, _ := strings.Cut(o, "="); k == key {
				keys = append(keys, o)
			}
		}
	}
	return strings.Join(keys, " ")
}
