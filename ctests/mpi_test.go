package ctests

// BSPlib programs under Open MPI's mpirun (the MPI world): each rank runs
// EBSP_RANK_CORES cores, pids numbered rank by rank.
//
// TestBSPlibUnderMPI runs every ctests/bsplib directory named conform_* or
// example_* (but those of mpiExcluded) in the layouts of the N cores its
// env's EBSP_MESH gives (16 without one; a program that runs fewer cores
// has an env file with its own EBSP_MESH, so that they spread over ranks),
// under make test one layout per program in turn (someLayouts):
//
//	ranks   4 x N/4 cores when N > 4 is a multiple of 4, else N x 1 core
//	half    2 x N/2 cores (when N is even and above 2)
//	tcp     like ranks, with --mca btl self,tcp (no shared memory)
//
// It compares stdout, its lines sorted (the ranks' lines interleave), with
// the expected file, the exit status with the exit file (default 0), and
// wants an empty stderr. Two files of a directory are for this test only:
//
//	mpi_cflags    compiler flags added to cflags for the build run by mpirun
//	expected_mpi  the stdout under mpirun, where it differs from expected
//
// (conform_drma and conform_compat with -DCONFORM_MPI check that bsp_hpget
// completes at the next sync instead of at once, without bsp_direct_get,
// which is refused across ranks, and do not print bsp_nprocs() after the
// section, which is then the cores of rank 0.)
//
// TestMPIJobEnds ends jobs in the ways stopSource knows (bsp_abort, exit,
// a crash, deadlock), over shared memory and TCP, and wants each end the
// same every time: mpirun's status and banner, the program's lines once,
// no other line; TestMPIEndStress repeats them (make stress-mpi).
// TestMPIBsprun runs bsprun --ranks. All skip without mpirun.
// Every run has mpiTimeout: a hang fails the test.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

const mpiTimeout = 120 * time.Second

// mpiExcluded: the conform_* and example_* directories that cannot run
// under mpirun, and why.
var mpiExcluded = map[string]string{
	"conform_spmd": "five SPMD sections of up to 16 cores: under mpirun the other ranks end with the first " +
		"(as with BSPonMPI), so a later section runs on rank 0 alone and its larger sections are refused",
	"conform_nested": "nested sections run in one process: under mpirun bsp_init inside a section is refused " +
		"(TestMPINestedRefused)",
}

// needMPI skips the test when mpirun is not on PATH, and under the
// 32-bit and ASan runs of the C tests (make test-c32, test-asan): make
// test-mpi runs these tests once, against the default build.
func needMPI(t *testing.T) {
	t.Helper()
	if os.Getenv("EBSP_CTEST_M32") == "1" || os.Getenv("EBSP_CTEST_LIBDIR") != "" {
		t.Skip("the MPI tests run against the default build only (make test-mpi)")
	}
	if _, err := exec.LookPath("mpirun"); err != nil {
		t.Skip("SKIPPED: mpirun not found (apt-get install openmpi-bin libopenmpi-dev)")
	}
}

type mpiLayout struct {
	name         string
	ranks, cores int // cores per rank
	tcp          bool
}

// mpiLayouts are the layouts of n cores that TestBSPlibUnderMPI runs.
func mpiLayouts(n int) []mpiLayout {
	ranks := mpiLayout{name: "ranks", ranks: n, cores: 1}
	if n > 4 && n%4 == 0 {
		ranks = mpiLayout{name: "ranks", ranks: 4, cores: n / 4}
	}
	layouts := []mpiLayout{ranks}
	if n%2 == 0 && n > 2 {
		layouts = append(layouts, mpiLayout{name: "half", ranks: 2, cores: n / 2})
	}
	tcp := ranks
	tcp.name, tcp.tcp = "tcp", true
	return append(layouts, tcp)
}

// meshCores is the core count of the EBSP_MESH=RxC line of env, 16 without.
func meshCores(t *testing.T, env []string) int {
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "EBSP_MESH="); ok {
			r, c, _ := strings.Cut(v, "x")
			rows, err1 := strconv.Atoi(r)
			cols, err2 := strconv.Atoi(c)
			if err1 != nil || err2 != nil || rows < 1 || cols < 1 {
				t.Fatalf("bad EBSP_MESH %q", v)
			}
			return rows * cols
		}
	}
	return 16
}

// mpirunArgs is the mpirun command line of prog: ranks ranks of cores cores
// each, the environment variables of env passed on with -x.
func mpirunArgs(l mpiLayout, env []string, prog string, args ...string) []string {
	// mpi_yield_when_idle: waiting ranks give up the CPU; with more ranks
	// than CPUs, runs that took 1 to 3.4 s take 0.5 s (lu, 4 ranks, 2 CPUs)
	a := []string{"--oversubscribe", "--mca", "mpi_yield_when_idle", "1",
		"-n", strconv.Itoa(l.ranks), "-x", "EBSP_RANK_CORES=" + strconv.Itoa(l.cores)}
	if os.Geteuid() == 0 {
		a = append([]string{"--allow-run-as-root"}, a...)
	}
	if l.tcp {
		a = append(a, "--mca", "btl", "self,tcp")
	}
	for _, kv := range env {
		a = append(a, "-x", kv)
	}
	return append(append(a, prog), args...)
}

// runMPI runs name with args (mpirun, or a wrapper calling it) in dir with
// env added, in its own process group, killed after mpiTimeout.
func runMPI(t *testing.T, dir, name string, args, env []string) (stdout, stderr string, code int) {
	t.Helper()
	r := runMPIOnce(t, dir, name, args, env, mpiTimeout)
	if r.hung {
		t.Fatalf("%s %s: no end within %v (killed)\nstdout:\n%s\nstderr:\n%s",
			name, strings.Join(args, " "), mpiTimeout, r.stdout, r.stderr)
	}
	return r.stdout, r.stderr, r.code
}

// mpiRun is the outcome of one run: its output, its exit status (128+N
// when a signal N ended it), whether it had not ended within its time.
type mpiRun struct {
	stdout, stderr string
	code           int
	signaled, hung bool
}

// runMPIOnce is runMPI with a time limit of its own and a hang reported,
// not fatal.
func runMPIOnce(t *testing.T, dir, name string, args, env []string, limit time.Duration) mpiRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second // output pipes held by orphans
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // leftovers of the job, if any
	}
	r := mpiRun{stdout: out.String(), stderr: errb.String(), hung: ctx.Err() != nil}
	var exitErr *exec.ExitError
	switch {
	case errors.As(err, &exitErr):
		r.code = exitErr.ExitCode()
		if ws, ok := exitErr.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			r.code, r.signaled = 128+int(ws.Signal()), true
		}
	case err != nil && !r.hung:
		t.Fatalf("%s: %v", name, err)
	}
	return r
}

func TestBSPlibUnderMPI(t *testing.T) {
	needMPI(t)
	root := repoRoot(t)
	var dirs []string
	for _, pattern := range []string{"conform_*", "example_*"} {
		found, _ := filepath.Glob(filepath.Join(root, "ctests", "bsplib", pattern, "expected"))
		for _, exp := range found {
			dirs = append(dirs, filepath.Dir(exp))
		}
	}
	if len(dirs) == 0 {
		t.Fatal("no BSPlib tests found")
	}
	for i, dir := range dirs {
		name := filepath.Base(dir)
		t.Run(name, func(t *testing.T) {
			if why, ok := mpiExcluded[name]; ok {
				t.Skip("not under mpirun: " + why)
			}
			bin := buildBSPlib(t, root, dir, append(readFields(dir, "cflags"), readFields(dir, "mpi_cflags")...), true)
			env := readEnv(t, dir)
			want, err := os.ReadFile(filepath.Join(dir, "expected_mpi"))
			if err != nil {
				want, _ = os.ReadFile(filepath.Join(dir, "expected"))
			}
			wantCode := 0
			if b, err := os.ReadFile(filepath.Join(dir, "exit")); err == nil {
				wantCode, _ = strconv.Atoi(strings.TrimSpace(string(b)))
			}
			for _, l := range someLayouts(i, mpiLayouts(meshCores(t, env))) {
				t.Run(fmt.Sprintf("%s_%dx%d", l.name, l.ranks, l.cores), func(t *testing.T) {
					args := mpirunArgs(l, env, bin, readFields(dir, "args")...)
					stdout, stderr, code := runMPI(t, filepath.Dir(bin), "mpirun", args, nil)
					if code != wantCode {
						t.Errorf("mpirun %s: exit status %d, want %d\nstdout:\n%s\nstderr:\n%s",
							strings.Join(args, " "), code, wantCode, stdout, stderr)
					}
					if g, w := sortedLines(stdout), sortedLines(string(want)); g != w {
						t.Errorf("mpirun %s: stdout differs (lines sorted)\n--- got\n%s--- want\n%s--- stderr\n%s",
							strings.Join(args, " "), g, w, stderr)
					}
					if stderr != "" {
						t.Errorf("mpirun %s: unexpected stderr:\n%s", strings.Join(args, " "), stderr)
					}
				})
			}
		})
	}
}

// stopSource stops a run from the last pid (on the last rank) in superstep
// 1: with bsp_abort (argument "abort"), a segmentation fault ("crash"),
// exit(3) ("exit3"), or by computing for ever ("stall", which the watchdog
// ends); or from pid 0 with exit(0) ("exit") or exit(3) ("exit3-first"); or rank 0 ends in main before the section, while
// the other ranks wait for it in bsp_begin: bsp_abort ("main-abort"),
// exit(3) ("main-exit"), a return ("main-return"); or every rank returns
// from main before bsp_init ("early-return"); or every pid returns from the
// SPMD function without bsp_end, pid 0 into main, which returns 0
// ("no-end"), or all but pid 0, which syncs ("no-end-wait"); or pid 0's
// bsp_begin asks for 1000 cores ("too-many").
const stopSource = `#include <bsp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *how = "abort";

static void spmd(void)
{
    bsp_begin(strcmp(how, "too-many") == 0 ? 1000 : bsp_nprocs());
    bsp_sync();
    if (bsp_pid() == 0 && strcmp(how, "exit") == 0)
        exit(0);
    if (bsp_pid() == 0 && strcmp(how, "exit3-first") == 0)
        exit(3);
    if (strcmp(how, "no-end") == 0 || (bsp_pid() != 0 && strcmp(how, "no-end-wait") == 0))
        return;
    if (bsp_pid() == bsp_nprocs() - 1) {
        if (strcmp(how, "abort") == 0)
            bsp_abort("pid %u gives up\n", (unsigned)bsp_pid());
        else if (strcmp(how, "stall") == 0)
            for (volatile unsigned i = 0;; i++)
                ;
        else if (strcmp(how, "exit3") == 0)
            exit(3);
        else if (strcmp(how, "crash") == 0)
            *(volatile int *)8 = 1;
    }
    bsp_sync();
    bsp_sync();
    bsp_end();
}

int main(int argc, char **argv)
{
    if (argc > 1)
        how = argv[1];
    if (strcmp(how, "early-return") == 0) /* every rank, MPI started by bsp_nprocs */
        return bsp_nprocs() == 0;
    bsp_init(spmd, argc, argv);
    if (strcmp(how, "main-abort") == 0)
        bsp_abort("no section today\n");
    if (strcmp(how, "main-exit") == 0)
        exit(3);
    if (strcmp(how, "main-return") == 0)
        return 0;
    spmd();
    if (strcmp(how, "no-end") == 0)
        return 0;
    printf("not reached\n");
    return 0;
}
`

// buildStop writes stopSource to a temporary directory and builds it.
func buildStop(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "stop")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "stop.c"), []byte(stopSource), 0o644); err != nil {
		t.Fatal(err)
	}
	return buildBSPlib(t, repoRoot(t), dir, []string{"-std=c99", "-pedantic"}, true)
}

// mpiStopLayouts: the stopping pid alone on rank 1, and beside another.
var mpiStopLayouts = []mpiLayout{{name: "2x1", ranks: 2, cores: 1}, {name: "2x2", ranks: 2, cores: 2}}

// A job's end under mpirun (stopSource's how, in a layout): mpirun's exit
// status, the rank its banner names when that is not 0 (exitBanner: the
// rank that ended the job, the same every time), and every line of the
// program and the library, each once, in any order; nothing else.
type jobEnd struct {
	how    string
	l      mpiLayout
	status int
	rank   int
	lines  []string
}

// endProblems is what a run did otherwise than e wants, by kind: "hang"
// (no end within its time), "mpirun crash" (mpirun ended by a signal),
// "status", "banner" (mpirun's banner missing, or naming another rank or
// status), "stray" (a line neither the program's nor mpirun's banner:
// Open MPI's errors), "lines" (the program's lines missing or repeated).
func endProblems(r mpiRun, e jobEnd) map[string]string {
	p := map[string]string{}
	if r.hung {
		p["hang"] = "no end within its time"
		return p
	}
	if r.signaled {
		p["mpirun crash"] = fmt.Sprintf("mpirun ended by signal %d", r.code-128)
	}
	if r.code != e.status {
		p["status"] = fmt.Sprintf("exit status %d, want %d", r.code, e.status)
	}
	rest, rank, status := splitBanner(r.stderr)
	if e.status != 0 && (rank != e.rank || status != e.status) {
		p["banner"] = fmt.Sprintf("mpirun's banner names rank %d, status %d; want rank %d, status %d", rank, status, e.rank, e.status)
	}
	want := map[string]int{}
	for _, l := range e.lines {
		want[l]++
	}
	var stray []string
	for _, line := range strings.Split(r.stdout+rest, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		if want[line] > 0 {
			want[line]--
			continue
		}
		stray = append(stray, line)
	}
	if len(stray) > 0 {
		p["stray"] = strings.Join(stray, "\n")
	}
	for l, n := range want {
		if n > 0 {
			p["lines"] += fmt.Sprintf("missing: %q\n", l)
		}
	}
	return p
}

// expectEnd runs e once and reports what differs.
func expectEnd(t *testing.T, bin string, e jobEnd) {
	t.Helper()
	args := mpirunArgs(e.l, nil, bin, e.how)
	r := runMPIOnce(t, filepath.Dir(bin), "mpirun", args, nil, mpiTimeout)
	for kind, what := range endProblems(r, e) {
		t.Errorf("mpirun %s: %s: %s\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), kind, what, r.stdout, r.stderr)
	}
}

// The exits of a BSPlib section's cores: "the program exits during a BSPlib
// SPMD section" with its status, core and superstep.
func exitLine(status, pid, step int) string {
	return fmt.Sprintf("ebsp: ERROR: the program exits during a BSPlib SPMD section (exit, or a return from main, "+
		"before every core called bsp_end): exit status %d on core %02d in superstep %d", status, pid, step)
}

// jobEnds are the ends of a job that TestMPIJobEnds checks once each and
// make stress-mpi many times (TestMPIEndStress).
func jobEnds() []jobEnd {
	x41, x22, tcp := mpiLayout{name: "4x1", ranks: 4, cores: 1}, mpiLayout{name: "2x2", ranks: 2, cores: 2},
		mpiLayout{name: "tcp4x1", ranks: 4, cores: 1, tcp: true}
	x21 := mpiLayout{name: "2x1", ranks: 2, cores: 1}
	abort := func(l mpiLayout) jobEnd {
		last := l.ranks*l.cores - 1
		return jobEnd{"abort", l, 1, l.ranks - 1, []string{fmt.Sprintf("pid %d gives up", last),
			fmt.Sprintf("ebsp: run stopped: bsp_abort on core %02d in superstep 1", last)}}
	}
	tcp22 := mpiLayout{name: "tcp2x2", ranks: 2, cores: 2, tcp: true}
	crash := func(l mpiLayout) jobEnd { // the last pid, alone on its rank or not: SIGSEGV, status 139
		return jobEnd{"crash", l, 139, l.ranks - 1, []string{fmt.Sprintf(
			"ebsp: core %02d crashed in superstep 1: SIGSEGV (invalid memory access) at address 0x8", l.ranks*l.cores-1)}}
	}
	deadlock := func(l mpiLayout) jobEnd {
		return jobEnd{"no-end-wait", l, 1, 0, []string{"ebsp: BSP ERROR: deadlock: the cores can no longer all meet in one synchronization",
			"ebsp:   core 00 waiting in bsp_sync (superstep 1)",
			fmt.Sprintf("ebsp:   cores 01-%02d returned from its SPMD function without bsp_end (superstep 1)", l.ranks*l.cores-1),
			"ebsp: run stopped: deadlock"}}
	}
	return []jobEnd{
		abort(x41), abort(x22), abort(tcp), abort(x21),
		crash(x21), crash(x22), crash(tcp22),
		{"exit3", x41, 3, 3, []string{exitLine(3, 3, 1)}},
		{"exit3", x22, 3, 1, []string{exitLine(3, 3, 1)}},
		{"exit3", tcp, 3, 3, []string{exitLine(3, 3, 1)}},
		{"exit3-first", x41, 3, 0, []string{exitLine(3, 0, 1)}},
		{"exit", x22, 1, 0, []string{exitLine(0, 0, 1)}},
		{"main-abort", x41, 1, 0, []string{"no section today"}},
		{"too-many", x41, 1, 0, []string{"ebsp: ERROR: bsp_begin: 1000 cores requested; mpirun started 4 ranks of 1 core(s) (EBSP_RANK_CORES): 1..4"}},
		{"main-exit", x21, 3, 0, nil},
		{"no-end", x41, 0, 0, []string{exitLine(0, 0, 1)}},
		deadlock(x41), deadlock(tcp),
	}
}

// Under make test each way of ending runs in one of its layouts, in turn
// (someLayouts); make stress-mpi's TestMPIEndStress runs them all. A job
// ends one way: bsp_abort on the last rank (its message once, the
// job's status 1 with mpirun's banner naming that rank, no other line),
// exit(3) inside the section (status 3), rank 0 ending before the section
// while the other ranks wait in theirs (main-abort, main-exit), cores
// returning from the SPMD function without bsp_end (as in one process, the
// program's exit says so once and keeps its status; a core waiting for them
// is a deadlock, reported once).
func TestMPIJobEnds(t *testing.T) {
	needMPI(t)
	bin := buildStop(t)
	var hows []string
	layouts := map[string][]jobEnd{}
	for _, e := range jobEnds() {
		if layouts[e.how] == nil {
			hows = append(hows, e.how)
		}
		layouts[e.how] = append(layouts[e.how], e)
	}
	for i, how := range hows {
		for _, e := range someLayouts(i, layouts[how]) {
			t.Run(e.how+"/"+e.l.name, func(t *testing.T) { expectEnd(t, bin, e) })
		}
	}
}

// expectStop runs stopSource's how in layout l and wants: the exit
// status 0 when ok, else non-zero; msg once in the output (with msg "",
// no line of the library's at all); and never "not reached".
func expectStop(t *testing.T, bin string, l mpiLayout, how string, ok bool, msg string) {
	t.Helper()
	stdout, stderr, code := runMPI(t, filepath.Dir(bin), "mpirun", mpirunArgs(l, nil, bin, how), nil)
	times := 1
	if msg == "" {
		msg, times = "ebsp:", 0
	}
	if (code == 0) != ok || strings.Count(stdout+stderr, msg) != times || strings.Contains(stdout, "not reached") {
		t.Errorf("exit status %d (want %s), %q %d times (want %d)\nstdout:\n%s\nstderr:\n%s",
			code, map[bool]string{true: "0", false: "non-zero"}[ok], msg, strings.Count(stdout+stderr, msg), times, stdout, stderr)
	}
}

// Ranks that end early, in the layouts of 2 ranks (TestMPIJobEnds has
// the exact lines): rank 0 before its first bsp_begin while the other
// ranks wait in theirs, every rank before bsp_init, pid 0 by exit in the
// section, cores returning without bsp_end.
func TestMPIRanksEndEarly(t *testing.T) {
	needMPI(t)
	bin := buildStop(t)
	for i, c := range []struct {
		how, msg string
		ok       bool
	}{
		{"main-abort", "no section today", false},
		{"main-exit", "", false},
		{"main-return", "", true},
		{"early-return", "", true},
		{"exit", "ebsp: ERROR: the program exits during a BSPlib SPMD section", false},
		{"no-end", "ebsp: ERROR: the program exits during a BSPlib SPMD section", true},
		{"no-end-wait", "ebsp: BSP ERROR: deadlock", false},
	} {
		for _, l := range someLayouts(i, mpiStopLayouts) {
			t.Run(c.how+"/"+l.name, func(t *testing.T) { expectStop(t, bin, l, c.how, c.ok, c.msg) })
		}
	}
}

// An EBSP host started by mpirun with 2 ranks: rank 0 says it runs in one
// process, and the job ends with status 1 naming rank 0, with no other
// line (no MPI call after MPI_Finalize).
func TestMPIEbspHostRefused(t *testing.T) {
	needMPI(t)
	root := repoRoot(t)
	dir := filepath.Join(root, "ctests", "hello")
	build, bin := buildCase(t, root, dir, filepath.Join(dir, "host_hello.c"))
	args := mpirunArgs(mpiLayout{name: "2x1", ranks: 2, cores: 1}, nil, bin)
	r := runMPIOnce(t, build, "mpirun", args, nil, mpiTimeout)
	for kind, what := range endProblems(r, refusedEnd) {
		t.Errorf("mpirun %s: %s: %s\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), kind, what, r.stdout, r.stderr)
	}
}

var refusedEnd = jobEnd{how: "ebsp-host", status: 1, rank: 0, lines: []string{"ebsp: ERROR: bsp_init: mpirun started 2 ranks " +
	"of this EBSP host program; an EBSP host and its cores run in one process: start it without mpirun (BSPlib programs, " +
	"bsp.h, run across ranks)"}}

// A core of the last rank that computes for ever: the watchdog
// (EBSP_TIMEOUT) of the ranks waiting for it reports once, and the job
// ends with a non-zero exit.
func TestMPIWatchdog(t *testing.T) {
	needMPI(t)
	bin := buildStop(t)
	for _, l := range mpiStopLayouts {
		t.Run(l.name, func(t *testing.T) {
			stdout, stderr, code := runMPI(t, filepath.Dir(bin), "mpirun", mpirunArgs(l, []string{"EBSP_TIMEOUT=2"}, bin, "stall"), nil)
			report := "ebsp: BSP ERROR: no progress for 2 s (EBSP_TIMEOUT): the run is stopped"
			if code == 0 || strings.Count(stdout+stderr, report) != 1 || strings.Contains(stdout, "not reached") {
				t.Errorf("exit status %d (want non-zero), the watchdog's report %d times (want once)\nstdout:\n%s\nstderr:\n%s",
					code, strings.Count(stdout+stderr, report), stdout, stderr)
			}
		})
	}
}

// bsprun -n P --ranks R: R ranks of P/R cores (tools/bsprun.in as it is in
// the tree; it has nothing for make to fill in).
func TestMPIBsprun(t *testing.T) {
	needMPI(t)
	root := repoRoot(t)
	bsprun := filepath.Join(root, "tools", "bsprun.in")
	bin := buildBSPlib(t, root, filepath.Join(root, "ctests", "bsplib", "example_hello"), nil, true)
	hello := func(p int) string {
		var b strings.Builder
		for i := 0; i < p; i++ {
			fmt.Fprintf(&b, "Hello from core %d of %d\n", i, p)
		}
		return b.String()
	}
	for _, c := range []struct{ p, r int }{{4, 2}, {8, 4}, {3, 3}, {4, 1}} {
		t.Run(fmt.Sprintf("n%d_ranks%d", c.p, c.r), func(t *testing.T) {
			args := []string{bsprun, "-n", strconv.Itoa(c.p), "--ranks", strconv.Itoa(c.r), bin}
			stdout, stderr, code := runMPI(t, filepath.Dir(bin), "sh", args, nil)
			if code != 0 || sortedLines(stdout) != hello(c.p) || stderr != "" {
				t.Errorf("bsprun %s: exit status %d\nstdout:\n%s\nwant (sorted):\n%sstderr:\n%s",
					strings.Join(args[1:], " "), code, stdout, hello(c.p), stderr)
			}
		})
	}
	// P not a multiple of R: refused before mpirun
	stdout, stderr, code := runMPI(t, filepath.Dir(bin), "sh", []string{bsprun, "-n", "6", "--ranks", "4", bin}, nil)
	if want := "bsprun: 6 cores do not divide into 4 ranks (P must be a multiple of R)"; code != 2 || stdout != "" ||
		strings.TrimSpace(stderr) != want {
		t.Errorf("bsprun -n 6 --ranks 4: exit status %d, stdout %q, stderr %q; want 2, nothing, %q", code, stdout, stderr, want)
	}
}

// What bsprun asks of mpirun (a stand-in that prints its arguments):
// the hostfile, and keepalive settings that end a job whose machine is cut
// off within seconds (TestMPIAcrossHosts), unless the user set Open MPI's.
func TestBsprunMpirunArgs(t *testing.T) {
	root := repoRoot(t)
	bsprun := filepath.Join(root, "tools", "bsprun.in")
	fake := t.TempDir()
	if err := os.WriteFile(filepath.Join(fake, "mpirun"), []byte("#!/bin/sh\necho \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	path := "PATH=" + fake + ":" + os.Getenv("PATH")
	args := func(env ...string) string {
		cmd := exec.Command("sh", bsprun, "-n", "4", "--ranks", "2", "--hostfile", "hosts", "./prog", "x")
		cmd.Env = append(append(os.Environ(), path), env...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("bsprun: %v\n%s", err, out)
		}
		return string(out)
	}
	keep := "--mca oob_tcp_keepalive_time 5 --mca oob_tcp_keepalive_intvl 2 --mca oob_tcp_keepalive_probes 3"
	got := args()
	for _, want := range []string{keep, "--hostfile hosts", "-n 2 -x EBSP_RANK_CORES -x EBSP_MESH", "./prog x\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("mpirun %s: no %q", got, want)
		}
	}
	if got := args("OMPI_MCA_oob_tcp_keepalive_time=60"); strings.Contains(got, "keepalive") {
		t.Errorf("with OMPI_MCA_oob_tcp_keepalive_time set: mpirun %s", got)
	}
}

// mpiStressed are the ctests/bsplib programs TestMPIStress repeats: the
// LQCD channels and collectives across ranks, messages, DRMA, runs of puts,
// thread identity, an example.
var mpiStressed = []string{"conform_lqcd", "conform_bsmp", "conform_drma", "conform_runs", "conform_identity", "example_inprod"}

// TestMPIStress runs each of mpiStressed EBSP_CTEST_REPEAT times in each
// layout of TestBSPlibUnderMPI under both schedulers (make stress-mpi), and
// prints the failures per program, layout and scheduler.
func TestMPIStress(t *testing.T) {
	runs := requireStressRuns(t, "make stress-mpi")
	needMPI(t)
	root := repoRoot(t)
	var rows []string
	for _, name := range mpiStressed {
		dir := filepath.Join(root, "ctests", "bsplib", name)
		bin := buildBSPlib(t, root, dir, append(readFields(dir, "cflags"), readFields(dir, "mpi_cflags")...), true)
		env := readEnv(t, dir)
		want, err := os.ReadFile(filepath.Join(dir, "expected_mpi"))
		if err != nil {
			want, _ = os.ReadFile(filepath.Join(dir, "expected"))
		}
		for _, l := range mpiLayouts(meshCores(t, env)) {
			for _, sched := range []string{"coro", "threads"} {
				args := mpirunArgs(l, append(env, "EBSP_SCHED="+sched), bin, readFields(dir, "args")...)
				failed, first := 0, ""
				for range runs {
					stdout, stderr, code := runMPI(t, filepath.Dir(bin), "mpirun", args, nil)
					if code != 0 || stderr != "" || sortedLines(stdout) != sortedLines(string(want)) {
						if failed++; first == "" {
							first = fmt.Sprintf("exit status %d\nstdout:\n%sstderr:\n%s", code, stdout, stderr)
						}
					}
				}
				row := fmt.Sprintf("%-16s %-10s %-8s %4d/%d failed", name, fmt.Sprintf("%s_%dx%d", l.name, l.ranks, l.cores), sched, failed, runs)
				rows = append(rows, row)
				if failed > 0 {
					t.Errorf("%s: first failure: mpirun %s\n%s", row, strings.Join(args, " "), first)
				}
			}
		}
	}
	t.Log("\n" + strings.Join(rows, "\n"))
}

// A registration at an address where no memory is (issue 33), with core 1
// (rank 0) making a request of core 2 (rank 1): the receiving rank finds
// it in the sync and names the call and the requesting core once; the job
// ends with a non-zero exit, no Go runtime dump, no hang. A bsp_hpput to
// another rank completes at the sync as a put, and is named bsp_put there.
func TestMPIWildRegistration(t *testing.T) {
	needMPI(t)
	root := repoRoot(t)
	bin := buildBSPlib(t, root, filepath.Join(root, "ctests", "bsplib", "misuse"), nil, true)
	want := map[string]string{
		"wild_put":   "$02: BSP ERROR: bsp_put: cannot write 16 bytes to core 02's copy of the registered variable at 0x7f0000001008: no writable memory there (a request of core 01) (superstep 1)",
		"low_put":    "$02: BSP ERROR: bsp_put: cannot write 16 bytes to core 02's copy of the registered variable at 0x18: no writable memory there (a request of core 01) (superstep 1)",
		"wild_get":   "$02: BSP ERROR: bsp_get: cannot read 16 bytes of core 02's copy of the registered variable at 0x7f0000001008: no readable memory there (a request of core 01) (superstep 1)",
		"low_hpput":  "$02: BSP ERROR: bsp_put: cannot write 16 bytes to core 02's copy of the registered variable at 0x18: no writable memory there (a request of core 01) (superstep 1)",
		"wild_hpget": "$02: BSP ERROR: bsp_get: cannot read 16 bytes of core 02's copy of the registered variable at 0x7f0000001008: no readable memory there (a request of core 01) (superstep 1)",
	}
	for i, name := range slices.Sorted(maps.Keys(want)) {
		line := want[name]
		for _, level := range someLayouts(i, []string{"board", "strict"}) {
			l := mpiLayout{name: "2x2", ranks: 2, cores: 2}
			t.Run(name+"/"+level, func(t *testing.T) {
				args := mpirunArgs(l, []string{"EBSP_CHECKS=" + level}, bin, name)
				stdout, stderr, code := runMPI(t, filepath.Dir(bin), "mpirun", args, nil)
				if code == 0 || strings.Count(stdout+stderr, line) != 1 || strings.Contains(stderr, "goroutine") ||
					strings.Contains(stdout, "section done") {
					t.Errorf("exit status %d (want non-zero), want once:\n%s\nstdout:\n%s\nstderr:\n%s", code, line, stdout, stderr)
				}
			})
		}
	}
}

// endRunLimit is the time one run of TestMPIEndStress may take: a run
// takes about half a second, and one still going after this is a hang.
const endRunLimit = 30 * time.Second

// TestMPIEndStress runs each of jobEnds, and an EBSP host refused under
// mpirun, EBSP_CTEST_REPEAT times (make stress-mpi; EBSP_CTEST_ENDS, a
// regular expression, picks cases by name), and prints per case
// the runs with a problem of each kind of endProblems: hangs, mpirun
// crashes, a wrong status, mpirun's banner naming another rank, stray
// lines (Open MPI's errors), the program's lines missing or repeated.
func TestMPIEndStress(t *testing.T) {
	runs := requireStressRuns(t, "make stress-mpi")
	needMPI(t)
	root := repoRoot(t)
	stop := buildStop(t)
	hello := filepath.Join(root, "ctests", "hello")
	build, host := buildCase(t, root, hello, filepath.Join(hello, "host_hello.c"))
	type job struct {
		name, dir string
		args      []string
		end       jobEnd
	}
	var jobs []job
	for _, e := range jobEnds() {
		jobs = append(jobs, job{e.how + "/" + e.l.name, filepath.Dir(stop), mpirunArgs(e.l, nil, stop, e.how), e})
	}
	jobs = append(jobs, job{"ebsp-host/2x1", build, mpirunArgs(mpiLayout{ranks: 2, cores: 1}, nil, host), refusedEnd},
		job{"ebsp-host/tcp2x1", build, mpirunArgs(mpiLayout{ranks: 2, cores: 1, tcp: true}, nil, host), refusedEnd})
	if only := os.Getenv("EBSP_CTEST_ENDS"); only != "" { // a regular expression: the cases to run
		re := regexp.MustCompile(only)
		kept := jobs[:0]
		for _, j := range jobs {
			if re.MatchString(j.name) {
				kept = append(kept, j)
			}
		}
		jobs = kept
	}
	kinds := []string{"hang", "mpirun crash", "status", "banner", "stray", "lines"}
	rows := []string{fmt.Sprintf("%-20s %5s %s", "case", "runs", strings.Join(kinds, " | "))}
	for _, j := range jobs {
		count := map[string]int{}
		first := map[string]string{}
		for range runs {
			r := runMPIOnce(t, j.dir, "mpirun", j.args, nil, endRunLimit)
			for kind, what := range endProblems(r, j.end) {
				if count[kind]++; first[kind] == "" {
					first[kind] = fmt.Sprintf("%s\nstdout:\n%s\nstderr:\n%s", what, r.stdout, r.stderr)
				}
			}
		}
		cells := make([]string, len(kinds))
		for i, k := range kinds {
			cells[i] = fmt.Sprintf("%*d", len(k), count[k])
		}
		rows = append(rows, fmt.Sprintf("%-20s %5d %s", j.name, runs, strings.Join(cells, " | ")))
		for _, k := range kinds {
			if count[k] > 0 {
				t.Errorf("%s: %d of %d runs: %s; the first: mpirun %s\n%s", j.name, count[k], runs, k, strings.Join(j.args, " "), first[k])
			}
		}
	}
	t.Log("\n" + strings.Join(rows, "\n"))
}

// mpirun -n 1 -x EBSP_RANK_CORES=C runs C cores, as C cores per rank do
// with more ranks; without EBSP_RANK_CORES, one rank is the one process
// of EBSP_MESH (16 cores).
func TestMPIOneRank(t *testing.T) {
	needMPI(t)
	root := repoRoot(t)
	bin := buildBSPlib(t, root, filepath.Join(root, "ctests", "bsplib", "example_hello"), nil, true)
	for _, c := range []struct {
		env   []string
		cores int
	}{{[]string{"EBSP_RANK_CORES=8"}, 8}, {[]string{"EBSP_RANK_CORES=3", "EBSP_MESH=2x2"}, 3}, {nil, 16}} {
		args := []string{"--oversubscribe", "-n", "1"}
		if os.Geteuid() == 0 {
			args = append([]string{"--allow-run-as-root"}, args...)
		}
		for _, kv := range c.env {
			args = append(args, "-x", kv)
		}
		stdout, stderr, code := runMPI(t, filepath.Dir(bin), "mpirun", append(args, bin), nil)
		want := ""
		for i := 0; i < c.cores; i++ {
			want += fmt.Sprintf("Hello from core %d of %d\n", i, c.cores)
		}
		if code != 0 || sortedLines(stdout) != sortedLines(want) || stderr != "" {
			t.Errorf("mpirun %s: exit status %d\nstdout:\n%s\nwant (sorted):\n%sstderr:\n%s", strings.Join(args, " "), code, stdout, want, stderr)
		}
	}
}

// globalsSource sets scale before bsp_init (every rank runs that) and n
// after it (rank 0 alone: the other ranks run spmd from bsp_init).
const globalsSource = `#include <bsp.h>
#include <stdio.h>
#include <stdlib.h>

static long n;
int scale;

static void spmd(void)
{
    bsp_begin(bsp_nprocs());
    printf("pid %u sees n=%ld scale=%d\n", (unsigned)bsp_pid(), n, scale);
    bsp_end();
}

int main(int argc, char **argv)
{
    scale = 2;
    bsp_init(spmd, argc, argv);
    n = 100;
    spmd();
    return 0;
}
`

// A global that main sets after bsp_init is 0 on the other ranks: under
// EBSP_CHECKS=strict rank 0 names it (n, not scale, set before bsp_init),
// once; at the default level nothing is said.
func TestMPIGlobalsAfterInit(t *testing.T) {
	needMPI(t)
	dir := filepath.Join(t.TempDir(), "globals")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "globals.c"), []byte(globalsSource), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := buildBSPlib(t, repoRoot(t), dir, nil, true)
	warning := "ebsp: WARNING: main set n after bsp_init: under mpirun the cores of the other ranks run the SPMD function " +
		"from their bsp_init (as with BSPonMPI) and see the value from before; send what they need inside the SPMD " +
		"function (bsp_put, bsp_send), or set it before bsp_init\n"
	for _, c := range []struct {
		env    []string
		stderr string
	}{{[]string{"EBSP_CHECKS=strict"}, warning}, {nil, ""}} {
		l := mpiLayout{name: "2x1", ranks: 2, cores: 1}
		stdout, stderr, code := runMPI(t, dir, "mpirun", mpirunArgs(l, c.env, bin), nil)
		if want := "pid 0 sees n=100 scale=2\npid 1 sees n=0 scale=2\n"; code != 0 || sortedLines(stdout) != want || stderr != c.stderr {
			t.Errorf("%v: exit status %d\nstdout:\n%s\nwant (sorted):\n%sstderr:\n%s\nwant:\n%s", c.env, code, stdout, want, stderr, c.stderr)
		}
	}
	// in one process the cores share the globals: nothing to say
	stdout, stderr, code := runProgram(t, bin, nil, []string{"EBSP_CHECKS=strict", "EBSP_MESH=1x2"})
	if code != 0 || sortedLines(stdout) != "pid 0 sees n=100 scale=2\npid 1 sees n=100 scale=2\n" || stderr != "" {
		t.Errorf("one process: exit status %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}
