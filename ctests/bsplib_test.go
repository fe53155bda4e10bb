package ctests

// BSPlib programs (include/bsp.h). Every directory of ctests/bsplib/ that
// holds an `expected` file is one program: its *.c files are compiled and
// linked together as bspcc does (-rdynamic -lebsp -lm), run, and checked
// like the EBSP tests (expected, expected_stderr, env, exit, ordered,
// heavy), plus:
//
//	args     command-line arguments, split on blanks
//	cflags   extra compiler flags, e.g. -DMCBSP_COMPATIBILITY_MODE
//	sorted   compare stdout with its lines sorted (for cores that print
//	         without the "$PP: " prefix, in any order)
//
// (mpi_cflags and expected_mpi are TestBSPlibUnderMPI's: mpi_test.go.)
//
// TestBSPlibMisuse runs the program of ctests/bsplib/misuse once per
// misuse, with the case's name as argument, against the table below.

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// sanitized reports whether the programs are built with a sanitizer, which
// owns the signals that the watchdog and crash tests rely on.
func sanitized() bool { return strings.Contains(os.Getenv("EBSP_CTEST_CFLAGS"), "sanitize") }

// buildBSPlib compiles the *.c files of dir into one program.
func buildBSPlib(t *testing.T, root, dir string, extra []string, rdynamic bool) string {
	t.Helper()
	sources, _ := filepath.Glob(filepath.Join(dir, "*.c"))
	if len(sources) == 0 {
		t.Fatalf("no C sources in %s", dir)
	}
	bin := filepath.Join(t.TempDir(), filepath.Base(dir))
	libdir := libDir(root)
	args := []string{"-std=gnu99", "-O1", "-g", "-Wall", "-Wextra", "-Werror", "-I" + filepath.Join(root, "include")}
	args = append(args, strings.Fields(os.Getenv("EBSP_CTEST_CFLAGS"))...)
	args = append(args, extra...)
	args = append(args, sources...)
	args = append(args, "-o", bin, "-L"+libdir, "-Wl,-rpath,"+libdir, "-lebsp", "-lm")
	if rdynamic {
		args = append(args, "-rdynamic")
	}
	gcc(t, args...)
	return bin
}

func sortedLines(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	sort.Strings(lines)
	return strings.Join(lines, "\n") + "\n"
}

func readFields(dir, name string) []string {
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return nil
	}
	return strings.Fields(string(b))
}

func TestBSPlibPrograms(t *testing.T) {
	root := repoRoot(t)
	found, _ := filepath.Glob(filepath.Join(root, "ctests", "bsplib", "*", "expected"))
	if len(found) == 0 {
		t.Fatal("no BSPlib tests found")
	}
	for _, exp := range found {
		dir := filepath.Dir(exp)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			if _, err := os.Stat(filepath.Join(dir, "heavy")); err != nil {
				t.Parallel()
			}
			bin := buildBSPlib(t, root, dir, readFields(dir, "cflags"), true)
			for _, sched := range schedulers() {
				env := append([]string{"EBSP_SCHED=" + sched}, readEnv(t, dir)...)
				t.Run(sched, func(t *testing.T) {
					stdout, stderr, code := runProgram(t, bin, readFields(dir, "args"), env)
					wantCode := 0
					if b, err := os.ReadFile(filepath.Join(dir, "exit")); err == nil {
						wantCode, _ = strconv.Atoi(strings.TrimSpace(string(b)))
					}
					if code != wantCode {
						t.Errorf("exit status %d, want %d\nstdout:\n%s\nstderr:\n%s", code, wantCode, stdout, stderr)
					}
					want, _ := os.ReadFile(exp)
					got, w := stdout, string(want)
					switch {
					case exists(dir, "sorted"):
						got, w = sortedLines(got), sortedLines(w)
					case !exists(dir, "ordered"):
						got, w = Canonical(got), Canonical(w)
					}
					if got != w {
						t.Errorf("stdout differs\n--- got\n%s--- want\n%s--- stderr\n%s", got, w, stderr)
					}
					if want, err := os.ReadFile(filepath.Join(dir, "expected_stderr")); err == nil {
						if g, w := strings.TrimSpace(stderr), strings.TrimSpace(string(want)); g != w {
							t.Errorf("stderr differs\n--- got\n%s\n--- want\n%s", g, w)
						}
					} else if stderr != "" {
						t.Errorf("unexpected stderr:\n%s", stderr)
					}
				})
			}
		})
	}
}

func exists(dir, name string) bool {
	_, err := os.Stat(filepath.Join(dir, name))
	return err == nil
}

// A misuse of the BSPlib face: misuse.c run with the case's name.
type misuseCase struct {
	name   string
	env    []string // extra environment
	stdout string   // expected stdout, Canonical
	stderr string   // expected stderr, exact after trimming
	// or, when set, a regular expression stderr (trimmed) must match
	stderrRE string
	exit     int
	signal   bool // relies on signals: skipped under sanitizers
}

// An LQCD wait no core can end, the other cores in bsp_sync.
const lqcdDeadlock = `
ebsp: BSP ERROR: deadlock: every core waits, and no core that runs is left to end an LQCD wait
ebsp:   cores 00,02-03 waiting in bsp_sync (superstep 1)
ebsp:   core 01 waiting in LQCD waitFor (superstep 1)
ebsp:   core 01 in waitFor: nothing arrived in buffer 7 of core 1: no send started by core 0
ebsp: run stopped: deadlock`

// The messages of docs/errors.md, section "The BSPlib face".
var misuseCases = []misuseCase{
	// registration, DRMA and the tag size
	{name: "put_same_superstep", exit: 1, stderr: `
$01: BSP ERROR: bsp_put: the address is not a registered variable (core 02, 4 bytes at offset 0) (superstep 0)
ebsp: run stopped: BSP ERROR on core 01 in superstep 0`},
	{name: "put_out_of_range", exit: 1, stderr: `
$02: BSP ERROR: bsp_put: 4 bytes at offset 2 exceed the 4 bytes core 03 registered (superstep 1)
ebsp: run stopped: BSP ERROR on core 02 in superstep 1`},
	{name: "get_bad_pid", exit: 1, stderr: `
$03: BSP ERROR: bsp_get: core 4 does not exist (this run has cores 0..3) (superstep 1)
ebsp: run stopped: BSP ERROR on core 03 in superstep 1`},
	{name: "negative_size", exit: 1, stderr: `
$01: BSP ERROR: bsp_hpput: negative size -4 (core 00) (superstep 1)
ebsp: run stopped: BSP ERROR on core 01 in superstep 1`},
	{name: "size_too_large", exit: 1, stderr: `
$01: BSP ERROR: bsp_get: size 4294967296 is larger than INT_MAX (2147483647): libebsp moves and registers at most that many bytes at once (superstep 1)
ebsp: run stopped: BSP ERROR on core 01 in superstep 1`},
	{name: "null_source", exit: 1, stderr: `
$02: BSP ERROR: bsp_put: the source is NULL but nbytes is 4 (superstep 1)
ebsp: run stopped: BSP ERROR on core 02 in superstep 1`},
	{name: "pop_unregistered", exit: 1, stderr: `
$00: BSP ERROR: bsp_pop_reg: the address is not registered (superstep 1)
ebsp: run stopped: BSP ERROR on core 00 in superstep 1`},
	{name: "pop_cancels_push", exit: 1, stderr: `
$01: BSP ERROR: bsp_put: the address is not a registered variable (core 02, 4 bytes at offset 0) (superstep 2)
ebsp: run stopped: BSP ERROR on core 01 in superstep 2`},
	{name: "push_mismatch", exit: 1, stderr: `
$02: BSP ERROR: bsp_push_reg: core 02 registered 2 variable(s) in this superstep, core 00 registered 1; all cores must register the same variables in the same superstep (superstep 1)
ebsp: run stopped: BSP ERROR on core 02 in superstep 1`},
	{name: "tagsize_mismatch", exit: 1, stderr: `
$01: BSP ERROR: bsp_set_tagsize: core 01 set tag size 8, core 00 set tag size 4 in this superstep; all cores must set the same tag size (superstep 1)
ebsp: run stopped: BSP ERROR on core 01 in superstep 1`},
	{name: "tagsize_null", exit: 1, stderr: `
$03: BSP ERROR: bsp_set_tagsize: the tag size pointer is NULL (superstep 1)
ebsp: run stopped: BSP ERROR on core 03 in superstep 1`},
	{name: "tagsize_wild", exit: 1, stderr: `
$03: BSP ERROR: bsp_set_tagsize: cannot write 8 bytes to the tag size at 0x7f0000001000: no writable memory there (superstep 1)
ebsp: run stopped: BSP ERROR on core 03 in superstep 1`},
	// the message calls' arguments
	{name: "get_tag_status_null", exit: 1, stderr: `
$01: BSP ERROR: bsp_get_tag: the status pointer is NULL (superstep 1)
ebsp: run stopped: BSP ERROR on core 01 in superstep 1`},
	{name: "get_tag_status_wild", exit: 1, stderr: `
$01: BSP ERROR: bsp_get_tag: cannot write 8 bytes to the status pointer at 0x7f0000001000: no writable memory there (superstep 1)
ebsp: run stopped: BSP ERROR on core 01 in superstep 1`},
	{name: "qsize_wild", exit: 1, stderr: `
$02: BSP ERROR: bsp_qsize: cannot write 4 bytes to the pointer for the number of messages at 0x7f0000001000: no writable memory there (superstep 1)
ebsp: run stopped: BSP ERROR on core 02 in superstep 1`},
	{name: "hpmove_wild", exit: 1, stderr: `
$03: BSP ERROR: bsp_hpmove: cannot write 8 bytes to the pointer for the tag's address at 0x7f0000001000: no writable memory there (superstep 2)
ebsp: run stopped: BSP ERROR on core 03 in superstep 2`},
	{name: "get_tag_tag_null", exit: 1, stderr: `
$02: BSP ERROR: bsp_get_tag: the tag buffer is NULL but the message's tag size is 4 (superstep 3)
ebsp: run stopped: BSP ERROR on core 02 in superstep 3`},
	{name: "hpmove_tag_null", exit: 1, stderr: `
$03: BSP ERROR: bsp_hpmove: the pointer for the tag's address is NULL (superstep 1)
ebsp: run stopped: BSP ERROR on core 03 in superstep 1`},
	{name: "hpmove_payload_null", exit: 1, stderr: `
$00: BSP ERROR: bsp_hpmove: the pointer for the payload's address is NULL (superstep 1)
ebsp: run stopped: BSP ERROR on core 00 in superstep 1`},
	{name: "move_empty", exit: 1, stderr: `
$02: BSP ERROR: bsp_move: the message queue is empty (bsp_qsize or bsp_get_tag tells) (superstep 1)
ebsp: run stopped: BSP ERROR on core 02 in superstep 1`},
	{name: "move_empty_unchecked", env: []string{"EBSP_CHECKS=0"}, exit: 0, stdout: "main: section done\n"},
	{name: "move_null", exit: 1, stderr: `
$01: BSP ERROR: bsp_move: the payload buffer is NULL but the size is 4 (superstep 1)
ebsp: run stopped: BSP ERROR on core 01 in superstep 1`},
	{name: "move_negative", exit: 1, stderr: `
$03: BSP ERROR: bsp_move: negative size -1 (superstep 1)
ebsp: run stopped: BSP ERROR on core 03 in superstep 1`},
	{name: "qsize_count_null", exit: 1, stderr: `
$02: BSP ERROR: bsp_qsize: the pointer for the number of messages is NULL (superstep 1)
ebsp: run stopped: BSP ERROR on core 02 in superstep 1`},
	{name: "qsize_count_null_strict", env: []string{"EBSP_CHECKS=strict"}, exit: 1, stderr: `
$02: BSP ERROR: bsp_qsize: the pointer for the number of messages is NULL (superstep 1)
ebsp: run stopped: BSP ERROR on core 02 in superstep 1`},
	{name: "qsize_bytes_null", exit: 1, stderr: `
$00: BSP ERROR: bsp_qsize: the pointer for their payload bytes is NULL (superstep 1)
ebsp: run stopped: BSP ERROR on core 00 in superstep 1`},
	// bsp_abort and the SPMD model
	{name: "abort", exit: 1, stderr: `
core 2 gives up: 42
ebsp: run stopped: bsp_abort on core 02 in superstep 1`},
	{name: "abort_pid0", exit: 1, stderr: `
pid 0 gives up
ebsp: run stopped: bsp_abort on core 00 in superstep 1`},
	{name: "abort_outside", exit: 1, stderr: `
no section: 7`},
	{name: "sync_before_begin", exit: 1, stderr: `
ebsp: ERROR: bsp_sync: called outside an SPMD section (every BSPlib call but bsp_init, bsp_begin, bsp_nprocs and bsp_abort belongs between bsp_begin and bsp_end, on a core of the section)`},
	{name: "pid_after_end", exit: 1, stdout: "main: section done\n", stderr: `
ebsp: ERROR: bsp_pid: called outside an SPMD section (every BSPlib call but bsp_init, bsp_begin, bsp_nprocs and bsp_abort belongs between bsp_begin and bsp_end, on a core of the section)`},
	{name: "put_before_begin", exit: 1, stderr: `
$01: BSP ERROR: bsp_put: called before bsp_begin on this core (an SPMD function starts with bsp_begin) (superstep 0)
ebsp: run stopped: BSP ERROR on core 01 in superstep 0`},
	{name: "begin_too_many", exit: 1, stderr: `
ebsp: ERROR: bsp_begin: 17 cores requested; this 4x4 mesh has 1..16 (set EBSP_MESH to change it)`},
	{name: "begin_zero", exit: 1, stderr: `
ebsp: ERROR: bsp_begin: 0 cores requested; this 4x4 mesh has 1..16 (set EBSP_MESH to change it)`},
	{name: "two_sections_no_init", exit: 1, stderr: `
$01: BSP ERROR: bsp_begin: this core asks for 1 cores, the section was started with 2; every core calls bsp_begin with the same count (without bsp_init the other cores run main from its start, so they reach its first bsp_begin: give each section its own function, named in bsp_init) (superstep 0)
ebsp: run stopped: BSP ERROR on core 01 in superstep 0`},
	{name: "begin_above_maximum_threads", exit: 1, stderr: `
ebsp: ERROR: bsp_begin: 4 cores requested; mcbsp_set_maximum_threads allows 1..3`},
	{name: "begin_nested", exit: 1, stderr: `
$01: BSP ERROR: bsp_begin: called again inside a running SPMD section (a nested section starts with bsp_init on this core first) (superstep 1)
ebsp: run stopped: BSP ERROR on core 01 in superstep 1`},
	{name: "init_null_inside", exit: 1, stderr: `
$00: BSP ERROR: bsp_init: the SPMD function is NULL (superstep 1)
ebsp: run stopped: BSP ERROR on core 00 in superstep 1`},
	{name: "nested_bad_pid", exit: 1, stderr: `
$01: BSP ERROR: bsp_put: core 3 does not exist (this run has cores 0..1) (superstep 0)
ebsp: run stopped: BSP ERROR on core 01 in superstep 0`},
	{name: "nested_outer_reg", exit: 1, stderr: `
$01: BSP ERROR: bsp_put: the address is not a registered variable (core 00, 4 bytes at offset 0) (superstep 0)
ebsp: run stopped: BSP ERROR on core 01 in superstep 0`},
	{name: "nested_no_end", exit: 1, stderr: `
ebsp: BSP ERROR: deadlock: the cores can no longer all meet in one synchronization
ebsp:   core 00 waiting in bsp_sync (superstep 0)
ebsp:   core 01 returned from its SPMD function without bsp_end (superstep 0)
ebsp: run stopped: deadlock`},
	{name: "nested_loop", env: []string{"EBSP_TIMEOUT=1"}, signal: true, exit: 1, stderr: `
ebsp: BSP ERROR: no progress for 1 s (EBSP_TIMEOUT): the run is stopped
ebsp:   core 00 waiting in bsp_sync (superstep 0)
ebsp:   core 01 running (superstep 0)
ebsp: run stopped: watchdog timeout`},
	{name: "nested_loop_pid0", env: []string{"EBSP_TIMEOUT=1"}, signal: true, exit: 1, stderr: `
ebsp: BSP ERROR: no progress for 1 s (EBSP_TIMEOUT): the run is stopped
ebsp:   core 00 running (superstep 0)
ebsp:   core 01 waiting in bsp_sync (superstep 0)
ebsp: run stopped: watchdog timeout`},
	{name: "init_null", exit: 1, stderr: `
ebsp: ERROR: bsp_init: the SPMD function is NULL`},
	{name: "pinning_bad", exit: 1, stderr: `
ebsp: ERROR: mcbsp_set_pinning: cannot read 16 bytes of the pinning at 0x10: no readable memory there`},
	{name: "reserved_cores_bad", exit: 1, stderr: `
ebsp: ERROR: mcbsp_set_reserved_cores: cannot read 24 bytes of the reserved cores at 0x20: no readable memory there`},
	{name: "return_without_end", exit: 1, stderr: `
ebsp: BSP ERROR: deadlock: the cores can no longer all meet in one synchronization
ebsp:   cores 00-01,03 waiting in bsp_sync (superstep 1)
ebsp:   core 02 returned from its SPMD function without bsp_end (superstep 1)
ebsp: run stopped: deadlock`},
	{name: "end_while_others_sync", exit: 1, stderr: `
ebsp: BSP ERROR: deadlock: the cores can no longer all meet in one synchronization
ebsp:   cores 00-01,03 waiting in bsp_sync (superstep 1)
ebsp:   core 02 waiting in bsp_end (superstep 1)
ebsp: run stopped: deadlock`},
	{name: "lqcd_deadlock", exit: 1, stderr: lqcdDeadlock},
	{name: "lqcd_deadlock", env: []string{"EBSP_CHECKS=strict"}, exit: 1, stderr: lqcdDeadlock},
	{name: "exit_inside", exit: 3, stderr: `
ebsp: ERROR: the program exits during a BSPlib SPMD section (exit, or a return from main, before every core called bsp_end): exit status 3 on core 00 in superstep 1`},
	{name: "loop", env: []string{"EBSP_TIMEOUT=2"}, exit: 1, signal: true, stderr: `
ebsp: BSP ERROR: no progress for 2 s (EBSP_TIMEOUT): the run is stopped
ebsp:   cores 00,02-03 waiting in bsp_sync (superstep 1)
ebsp:   core 01 running (superstep 1)
ebsp: run stopped: watchdog timeout`},
	{name: "loop_pid0", env: []string{"EBSP_TIMEOUT=2"}, exit: 1, signal: true, stderr: `
ebsp: BSP ERROR: no progress for 2 s (EBSP_TIMEOUT): the run is stopped
ebsp:   core 00 running (superstep 1)
ebsp:   cores 01-03 waiting in bsp_sync (superstep 1)
ebsp: run stopped: watchdog timeout`},
	{name: "crash", exit: 139, signal: true, stderr: `
ebsp: core 03 crashed in superstep 1: SIGSEGV (invalid memory access) at address 0x8`},
	{name: "abort_libc", exit: 134, signal: true, stderr: `
ebsp: core 02 called abort() in superstep 1 (SIGABRT), which ends the host program (cores are threads of it; bsp_abort stops a run)`},
	{name: "abort_libc_strict", env: []string{"EBSP_CHECKS=strict"}, exit: 134, signal: true, stderr: `
ebsp: core 02 called abort() in superstep 1 (SIGABRT), which ends the host program (cores are threads of it; bsp_abort stops a run)`},
	// a terminating signal a core raises itself is named as abort() is; a
	// core's pthread_exit would leave the others waiting for ever
	{name: "raise_term", exit: 143, signal: true, stderr: `
ebsp: core 02 raised SIGTERM in superstep 1, which ends the host program (cores are threads of it; bsp_abort stops a run)`},
	{name: "raise_usr1_strict", env: []string{"EBSP_CHECKS=strict"}, exit: 138, signal: true, stderr: `
ebsp: core 02 raised SIGUSR1 in superstep 1, which ends the host program (cores are threads of it; bsp_abort stops a run)`},
	{name: "stack_overflow", exit: 139, signal: true, stderrRE: `^ebsp: core 03 crashed in superstep 1: SIGSEGV \(invalid memory access\) at address 0x[0-9a-f]+: its stack overflowed \(EBSP_STACK_KB sets a core's stack\)$`},
	{name: "pthread_exit", exit: 1, stderr: `
ebsp: core 02 called pthread_exit in superstep 1, which ends the thread it runs on: the run cannot go on (cores are threads of the host program; bsp_abort stops a run)`},
	{name: "pthread_exit_strict", env: []string{"EBSP_CHECKS=strict"}, exit: 1, stderr: `
ebsp: core 02 called pthread_exit in superstep 1, which ends the thread it runs on: the run cannot go on (cores are threads of the host program; bsp_abort stops a run)`},
	// the program's main thread is pid 0; _exit, _Exit and quick_exit skip
	// the exit handlers that name exit; outside a section they are libc's
	// a crash inside a call of the library names the call
	{name: "crash_in_call", exit: 139, signal: true, stderr: `
ebsp: core 01 crashed in superstep 1: SIGSEGV (invalid memory access) at address 0x7f0000001000, in its call of bsp_abort`},
	{name: "crash_in_call_strict", env: []string{"EBSP_CHECKS=strict"}, exit: 139, signal: true, stderr: `
ebsp: core 01 crashed in superstep 1: SIGSEGV (invalid memory access) at address 0x7f0000001000, in its call of bsp_abort`},
	{name: "pthread_exit_pid0", exit: 1, stderr: `
ebsp: core 00 called pthread_exit in superstep 1, which ends the thread it runs on: the run cannot go on (cores are threads of the host program; bsp_abort stops a run)`},
	{name: "pthread_exit_pid0_strict", env: []string{"EBSP_CHECKS=strict"}, exit: 1, stderr: `
ebsp: core 00 called pthread_exit in superstep 1, which ends the thread it runs on: the run cannot go on (cores are threads of the host program; bsp_abort stops a run)`},
	{name: "_exit", exit: 5, stderr: `
ebsp: ERROR: core 02 called _exit(5) in superstep 1, which ends the host program at once (cores are threads of it; bsp_abort stops a run)`},
	{name: "_exit_strict", env: []string{"EBSP_CHECKS=strict"}, exit: 5, stderr: `
ebsp: ERROR: core 02 called _exit(5) in superstep 1, which ends the host program at once (cores are threads of it; bsp_abort stops a run)`},
	{name: "_Exit", exit: 6, stderr: `
ebsp: ERROR: core 01 called _Exit(6) in superstep 1, which ends the host program at once (cores are threads of it; bsp_abort stops a run)`},
	{name: "_Exit_strict", env: []string{"EBSP_CHECKS=strict"}, exit: 6, stderr: `
ebsp: ERROR: core 01 called _Exit(6) in superstep 1, which ends the host program at once (cores are threads of it; bsp_abort stops a run)`},
	{name: "quick_exit", exit: 7, stderr: `
ebsp: ERROR: core 03 called quick_exit(7) in superstep 1, which ends the host program at once (cores are threads of it; bsp_abort stops a run)`},
	{name: "quick_exit_strict", env: []string{"EBSP_CHECKS=strict"}, exit: 7, stderr: `
ebsp: ERROR: core 03 called quick_exit(7) in superstep 1, which ends the host program at once (cores are threads of it; bsp_abort stops a run)`},
	{name: "_exit_after_end", exit: 9},
	{name: "call_no_code", exit: 139, signal: true, stderr: `
ebsp: core 01 crashed in superstep 1: SIGSEGV (invalid memory access) at address 0x5000: it called or jumped to that address, where there is no code`},
	{name: "call_no_code_strict", env: []string{"EBSP_CHECKS=strict"}, exit: 139, signal: true, stderr: `
ebsp: core 01 crashed in superstep 1: SIGSEGV (invalid memory access) at address 0x5000: it called or jumped to that address, where there is no code`},
	{name: "mix_ebsp_init", exit: 0, stdout: "$00: EBSP bsp_init returned 0\nmain: section done\n", stderr: `
ebsp: ERROR: bsp_init: a BSPlib SPMD section (bsp.h) is running; a program may not mix the EBSP face (host_bsp.h, e_bsp.h) and the BSPlib face (bsp.h) in one SPMD run`},
	{name: "mix_ebsp_begin", exit: 1, stderr: `
$00: BSP ERROR: bsp_begin: an EBSP call (host_bsp.h or e_bsp.h) in a BSPlib SPMD section (bsp.h); a program may not mix the EBSP face (host_bsp.h, e_bsp.h) and the BSPlib face (bsp.h) in one SPMD run (superstep 1)
ebsp: run stopped: BSP ERROR on core 00 in superstep 1`},
	{name: "mix_begin_during_ebsp", exit: 1, stderr: `
ebsp: ERROR: bsp_begin: the EBSP host has 2 cores loaded (bsp_begin of host_bsp.h, kernel "noop"); a program may not mix the EBSP face (host_bsp.h, e_bsp.h) and the BSPlib face (bsp.h) in one SPMD run: call its bsp_end first`},
	{name: "mix_bsplib_in_ebsp_kernel", exit: 0, stdout: "$01: BSP ERROR: bsp_sync: a BSPlib call (bsp.h) in an EBSP kernel; a program may not mix the EBSP face (host_bsp.h, e_bsp.h) and the BSPlib face (bsp.h) in one SPMD run (superstep 0)\nebsp: run stopped: BSP ERROR on core 01 in superstep 0\nhost: ebsp_spmd returned 0\n"},
}

// badSourceCases: core 1's bsp_put, bsp_hpput or bsp_send of memory that
// is not there, or bsp_hpget into it (badsrc_OP_N: N bytes), at both check
// levels. Each size takes another copy of the shortest paths (copy_user:
// bytes, words, 16-byte moves, pages touched first), which refuse instead
// of crashing: the engine's line, as on the other paths.
func badSourceCases() []misuseCase {
	var cases []misuseCase
	for _, v := range []struct {
		op, call, what string
		sizes          []int
	}{
		{"put", "bsp_put", "read %d bytes of the source", []int{1, 4, 24, 4096}},
		{"hpput", "bsp_hpput", "read %d bytes of the source", []int{4, 100}},
		{"send", "bsp_send", "read %d bytes of the payload", []int{4, 16, 100}},
		{"hpget", "bsp_hpget", "write %d bytes to the destination", []int{4, 4096}},
	} {
		for _, n := range v.sizes {
			what, there := fmt.Sprintf(v.what, n), "no readable memory there"
			if strings.HasPrefix(what, "write") {
				there = "no writable memory there"
			}
			stderr := fmt.Sprintf("\n$01: BSP ERROR: %s: cannot %s at 0x7f0000001000: %s (superstep 1)\n"+
				"ebsp: run stopped: BSP ERROR on core 01 in superstep 1", v.call, what, there)
			name := fmt.Sprintf("badsrc_%s_%d", v.op, n)
			cases = append(cases, misuseCase{name: name, exit: 1, stderr: stderr},
				misuseCase{name: name + "_strict", env: []string{"EBSP_CHECKS=strict"}, exit: 1, stderr: stderr})
		}
	}
	return cases
}

// wildCases are the misuse cases of a registration at an address where no
// memory is (wild_OP, 0x7f0000001000) or a number below 4096 (low_OP,
// 0x10): core 1 makes request OP of 16 bytes at offset 8 of core 2's
// copy, at the default and the strict level. A put or a get is reported by
// core 2, which carries it out in the sync; the hp calls and
// bsp_direct_get by core 1, at the call.
func wildCases() []misuseCase {
	var cases []misuseCase
	for _, v := range []struct{ name, at string }{{"wild", "0x7f0000001008"}, {"low", "0x18"}} {
		for _, op := range []struct {
			name, call string
			write      bool
			atCall     bool
		}{{"put", "bsp_put", true, false}, {"get", "bsp_get", false, false}, {"hpput", "bsp_hpput", true, true},
			{"hpget", "bsp_hpget", false, true}, {"direct_get", "bsp_direct_get", false, true}} {
			what := "cannot read 16 bytes of core 02's copy of the registered variable at " + v.at + ": no readable memory there"
			if op.write {
				what = "cannot write 16 bytes to core 02's copy of the registered variable at " + v.at + ": no writable memory there"
			}
			core, request := "02", " (a request of core 01)"
			if op.atCall {
				core, request = "01", ""
			}
			stderr := fmt.Sprintf("\n$%s: BSP ERROR: %s: %s%s (superstep 1)\nebsp: run stopped: BSP ERROR on core %s in superstep 1",
				core, op.call, what, request, core)
			name := v.name + "_" + op.name
			cases = append(cases, misuseCase{name: name, exit: 1, stderr: stderr},
				misuseCase{name: name + "_strict", env: []string{"EBSP_CHECKS=strict"}, exit: 1, stderr: stderr})
		}
		// a get's destination there, which the sync writes: checked at the call
		at := strings.TrimSuffix(v.at, "8") + "0"
		stderr := "\n$01: BSP ERROR: bsp_get: cannot write 4 bytes to the destination at " + at +
			": no writable memory there (superstep 1)\nebsp: run stopped: BSP ERROR on core 01 in superstep 1"
		cases = append(cases, misuseCase{name: v.name + "_getdst", exit: 1, stderr: stderr},
			misuseCase{name: v.name + "_getdst_strict", env: []string{"EBSP_CHECKS=strict"}, exit: 1, stderr: stderr})
	}
	return cases
}

// wildMessageCases: core 2 reads a message's tag (bsp_get_tag) or its
// payload (bsp_move) into memory that is not there, at both levels.
func wildMessageCases() []misuseCase {
	var cases []misuseCase
	for _, c := range []struct{ name, line string }{
		{"wildmsg_tag", "bsp_get_tag: cannot write 4 bytes to the tag buffer at 0x7f0000001000: no writable memory there"},
		{"wildmsg_move", "bsp_move: cannot write 8 bytes to the payload buffer at 0x7f0000001000: no writable memory there"},
		{"wildmsg_move_low", "bsp_move: cannot write 8 bytes to the payload buffer at 0x10: no writable memory there"},
	} {
		stderr := "\n$02: BSP ERROR: " + c.line + " (superstep 3)\nebsp: run stopped: BSP ERROR on core 02 in superstep 3"
		cases = append(cases, misuseCase{name: c.name, exit: 1, stderr: stderr},
			misuseCase{name: c.name + "_strict", env: []string{"EBSP_CHECKS=strict"}, exit: 1, stderr: stderr})
	}
	return cases
}

func init() {
	misuseCases = append(append(append(misuseCases, wildCases()...), wildMessageCases()...), badSourceCases()...)
}

// The wild registrations and bad sources with statistics, and in the test
// world that copies each block (EBSP_WORLD=copy): the engine's own paths,
// where a fault was a Go runtime dump. The line is the same (statistics add their
// table on stderr).
func TestBSPlibWildRegistrationPaths(t *testing.T) {
	root := repoRoot(t)
	bin := buildBSPlib(t, root, filepath.Join(root, "ctests", "bsplib", "misuse"), nil, true)
	for _, c := range append(wildCases(), badSourceCases()...) {
		for _, setting := range []string{"EBSP_STATS=1", "EBSP_WORLD=copy"} {
			t.Run(c.name+"/"+setting, func(t *testing.T) {
				t.Parallel()
				for _, sched := range schedulers() {
					env := append([]string{"EBSP_SCHED=" + sched, setting}, c.env...)
					stdout, stderr, code := runProgram(t, bin, []string{c.name}, env)
					missing := false
					for _, line := range strings.Split(strings.TrimSpace(c.stderr), "\n") {
						missing = missing || !strings.Contains(stderr, line+"\n")
					}
					if code != c.exit || missing || strings.Contains(stderr, "goroutine") {
						t.Errorf("%s: exit status %d, want %d; stderr want:%s\n--- stdout\n%s--- stderr\n%s", sched, code, c.exit, c.stderr, stdout, stderr)
					}
				}
			})
		}
	}
}

func TestBSPlibMisuse(t *testing.T) {
	root := repoRoot(t)
	bin := buildBSPlib(t, root, filepath.Join(root, "ctests", "bsplib", "misuse"), nil, true)
	for _, c := range misuseCases {
		t.Run(c.name, func(t *testing.T) {
			if c.signal && sanitized() {
				t.Skip("signals belong to the sanitizer")
			}
			t.Parallel()
			for _, sched := range schedulers() {
				t.Run(sched, func(t *testing.T) {
					env := append([]string{"EBSP_SCHED=" + sched}, c.env...)
					stdout, stderr, code := runProgram(t, bin, []string{c.name}, env)
					if code != c.exit {
						t.Errorf("exit status %d, want %d\nstdout:\n%s\nstderr:\n%s", code, c.exit, stdout, stderr)
					}
					if g, w := Canonical(stdout), Canonical(c.stdout); strings.TrimSpace(g) != strings.TrimSpace(w) {
						t.Errorf("stdout differs\n--- got\n%s--- want\n%s--- stderr\n%s", g, w, stderr)
					}
					if c.stderrRE != "" {
						if g := strings.TrimSpace(stderr); !regexp.MustCompile(c.stderrRE).MatchString(g) {
							t.Errorf("stderr does not match %s\n--- got\n%s", c.stderrRE, g)
						}
					} else if g, w := strings.TrimSpace(stderr), strings.TrimSpace(c.stderr); g != w {
						t.Errorf("stderr differs\n--- got\n%s\n--- want\n%s", g, w)
					}
				})
			}
		})
	}
}

// Without bsp_init and without -rdynamic, the library cannot find main for
// the other cores: a clear error, not a crash.
func TestBSPlibMainNotExported(t *testing.T) {
	root := repoRoot(t)
	bin := buildBSPlib(t, root, filepath.Join(root, "ctests", "bsplib", "spmd_main"), nil, false)
	_, stderr, code := runProgram(t, bin, nil, nil)
	want := "ebsp: ERROR: bsp_begin: without bsp_init(spmd, argc, argv) first, the other cores run main, but main is not in " +
		"the program's dynamic symbol table: link with -rdynamic (bspcc and `pkg-config --libs bsp` do), or call bsp_init first"
	if code != 1 || strings.TrimSpace(stderr) != want {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 1 and:\n%s", code, stderr, want)
	}
}

// EBSP_STATS and EBSP_TRACE apply to BSPlib sections too: one run per
// section, the table on stderr (stdout is the program's).
func TestBSPlibStatsAndTrace(t *testing.T) {
	root := repoRoot(t)
	bin := buildBSPlib(t, root, filepath.Join(root, "ctests", "bsplib", "example_inprod"), nil, true)
	trace := filepath.Join(t.TempDir(), "trace.json")
	stdout, stderr, code := runProgram(t, bin, []string{"4", "1000"}, []string{"EBSP_STATS=1", "EBSP_TRACE=" + trace})
	if code != 0 || !strings.HasPrefix(stdout, "inner product of (1..1000) with itself on 4 cores") {
		t.Fatalf("exit %d, stdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	// three bsp_syncs, and the last superstep ends at bsp_end (README)
	if !strings.Contains(stderr, "ebsp stats: run 1, 4 cores, 4 supersteps") {
		t.Errorf("no statistics table on stderr:\n%s", stderr)
	}
	if b, err := os.ReadFile(trace); err != nil || !bytes.Contains(b, []byte(`"traceEvents"`)) {
		t.Errorf("no trace file (%v)", err)
	}
}
