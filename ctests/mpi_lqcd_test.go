package ctests

// LQCD deadlocks across MPI ranks (issue 33, item 4): every core of every
// rank waits without limit (waitFor(r, -1)) for what no core will send,
// some of them perhaps in bsp_sync. The job must end with the deadlock
// report, as in one process (ctests/lqcd_deadlock), without EBSP_TIMEOUT:
// once, from rank 0, with every LQCD wait named; and a wait that a slow
// core of another rank ends must not be taken for one.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// lqcdDeadlockSource waits as its argument says: "all" (every core waits
// for a receive no core sends to), "mixed" (the cores of the last rank
// wait for such a receive, the others in bsp_sync), "slow" (no deadlock:
// every core waits for its ring neighbour's message, which the last core
// sends after computing for 300 ms).
const lqcdDeadlockSource = `#include <bsp.h>
#include <lqcd_msg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static const char *how = "all";

static void compute(int ms)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do
        clock_gettime(CLOCK_MONOTONIC, &t);
    while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
}

static void spmd(void)
{
    bsp_begin(bsp_nprocs());
    int s = (int)bsp_pid(), p = (int)bsp_nprocs(), in = -1, out = -1; /* the cores share globals */
    initMachine();
    void *rx = declareReceive(&in, sizeof in, 7);
    void *tx = declareSendTo(&out, sizeof out, (s + 1) % p, 7);
    waitForBarrier();
    startReceive(rx);
    if (strcmp(how, "slow") == 0) {
        if (s == p - 1)
            compute(300);
        out = s;
        startSend(tx);
        waitFor(tx, -1);
        waitFor(rx, -1);
        int ok = in == (s + p - 1) % p;
        if (sumInt(ok) == p && s == 0)
            printf("slow: ok\n");
    } else if (strcmp(how, "mixed") == 0 && s < p - p / 2) {
        bsp_sync();
    } else {
        waitFor(rx, -1);
        printf("not reached\n");
    }
    shutdownMachine();
    bsp_end();
}

int main(int argc, char **argv)
{
    if (argc > 1)
        how = argv[1];
    bsp_init(spmd, argc, argv);
    spmd();
    return 0;
}
`

// lqcdDeadlockLimit bounds a run: a deadlock is found within a few
// seconds (nudges back off to 1 s); none of these runs ends otherwise.
const lqcdDeadlockLimit = 60 * time.Second

func TestMPILqcdDeadlock(t *testing.T) {
	needMPI(t)
	dir := filepath.Join(t.TempDir(), "lqcd_deadlock")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "deadlock.c"), []byte(lqcdDeadlockSource), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := buildBSPlib(t, repoRoot(t), dir, nil, true)
	header := "ebsp: BSP ERROR: deadlock: every core waits, and no core that runs is left to end an LQCD wait"
	// the start of a waiter's line: why follows (which sender, on which rank)
	waitLine := func(pid int) string {
		return fmt.Sprintf("ebsp:   core %02d in waitFor: nothing arrived in buffer 7 of core %d: ", pid, pid)
	}
	// make test: 2x2; make stress-mpi (EBSP_CTEST_REPEAT set) also 2x1 and 4x1
	layouts := []mpiLayout{{name: "2x2", ranks: 2, cores: 2}}
	if stressRuns() > 0 {
		layouts = append(layouts, mpiLayout{name: "2x1", ranks: 2, cores: 1}, mpiLayout{name: "4x1", ranks: 4, cores: 1})
	}
	for _, l := range layouts {
		n := l.ranks * l.cores
		for _, how := range []string{"all", "mixed", "slow"} {
			t.Run(how+"/"+l.name, func(t *testing.T) {
				start := time.Now()
				r := runMPIOnce(t, filepath.Dir(bin), "mpirun", mpirunArgs(l, nil, bin, how), nil, lqcdDeadlockLimit)
				out := r.stdout + r.stderr
				if r.hung {
					t.Fatalf("%s: no end within %v: the deadlock was not found\n%s", how, lqcdDeadlockLimit, out)
				}
				if strings.Contains(out, "not reached") {
					t.Errorf("a wait that cannot end returned\n%s", out)
				}
				if how == "slow" {
					if r.code != 0 || strings.Count(out, "slow: ok") != 1 || strings.Contains(out, "deadlock") {
						t.Errorf("a slow core of another rank was taken for a deadlock: status %d\n%s", r.code, out)
					}
					return
				}
				var want []string
				want = append(want, header)
				waiters := []int{}
				for pid := 0; pid < n; pid++ {
					if how == "all" || pid >= n-n/2 {
						waiters = append(waiters, pid)
					}
				}
				for _, pid := range waiters {
					want = append(want, waitLine(pid))
				}
				want = append(want, "ebsp: run stopped: deadlock")
				if r.code == 0 {
					t.Errorf("exit status 0, want non-zero")
				}
				for _, w := range want {
					if c := strings.Count(out, w); c != 1 {
						t.Errorf("%q %d times, want once", w, c)
					}
				}
				if t.Failed() {
					t.Logf("took %v\nstdout:\n%s\nstderr:\n%s", time.Since(start), r.stdout, r.stderr)
				}
			})
		}
	}
}
