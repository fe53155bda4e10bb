// Package env is the one place where libebsp reads its EBSP_* environment
// variables. The engine packages (emesh, engine) take configuration
// values, never the environment; the C shim gets its settings (stack
// size, watchdog, scheduler, workers, resting) from capi, which reads them
// here. README.md's table of
// variables is the user's list; a test holds it to Vars.
//
// Every function takes the getenv to read with: the library passes the C
// library's getenv, which sees what a host program set with setenv after
// loading the library (Go's os.Getenv reads a copy made at load time).
// Each variable is read when the layer needing it starts (the mesh at the
// first call, the memories at bsp_begin, the rest at each run), so a host
// may change them between runs.
package env

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unsafe"

	"libebsp/emesh"
	"libebsp/engine"
)

// Getenv reads one variable ("" when unset).
type Getenv func(name string) string

// The variables' names. Those that an engine message names are defined
// beside the message (emesh, engine) and only read here.
const (
	Mesh       = emesh.MeshEnv        // the mesh, ROWSxCOLS
	KernelPath = engine.KernelPathEnv // extra kernel directories
	StackKB    = "EBSP_STACK_KB"      // stack of each core thread, KiB
	Checks     = engine.ChecksEnv     // board, strict or 0
	CommLimit  = engine.CommLimitEnv  // MiB one core may queue per superstep
	Timeout    = "EBSP_TIMEOUT"       // watchdog, seconds
	LocalMem   = emesh.LocalMemEnv    // local memory per core
	ExtMem     = emesh.ExtMemEnv      // external memory
	Stats      = engine.StatsEnv      // superstep statistics
	Trace      = engine.TraceEnv      // Chrome trace file
	DMASync    = emesh.DMASyncEnv     // DMA transfers copied at the push
	Slowdown   = emesh.SlowdownEnv    // host-to-Epiphany compute factor of the predicted board time
	Sched      = "EBSP_SCHED"         // coro or threads
	Workers    = "EBSP_WORKERS"       // coroutine worker threads
	Rest       = "EBSP_REST"          // cores on one worker when that is faster
)

// Vars lists every variable the library reads, in README.md's order.
var Vars = []string{Mesh, KernelPath, Sched, Workers, Rest, StackKB, Checks, CommLimit, Timeout, LocalMem, ExtMem, Stats, Slowdown, Trace, DMASync, RankCores, MPIBlock, MPITest, World}

// MeshOf is EBSP_MESH: the emulated mesh, emesh.DefaultMesh when unset.
func MeshOf(get Getenv) (emesh.Mesh, error) {
	v := get(Mesh)
	if v == "" {
		return emesh.DefaultMesh, nil
	}
	return emesh.ParseMesh(v)
}

// MemoryOf is EBSP_LOCAL_MEM, EBSP_EXT_MEM and EBSP_DMA_SYNC: the sizes
// of the emulated memories and whether DMA copies at once.
func MemoryOf(get Getenv) (emesh.MemoryConfig, error) {
	return emesh.ParseMemoryConfig(get(LocalMem), get(ExtMem), get(DMASync))
}

// ChecksOf is EBSP_CHECKS: the check level (board on an error, which is
// returned to be reported).
func ChecksOf(get Getenv) (engine.CheckLevel, error) {
	return engine.ParseCheckLevel(get(Checks))
}

// MaxCommLimitMiB is the largest EBSP_COMM_LIMIT_MB: its bytes fit in an
// int (2047 MiB in a 32-bit build).
const MaxCommLimitMiB = math.MaxInt >> 20

// CommLimitOf is EBSP_COMM_LIMIT_MB: the MiB one core may queue per
// superstep, 1..MaxCommLimitMiB; 0 (unset, or an error, returned to be
// reported) for the engine's default.
func CommLimitOf(get Getenv) (int, error) {
	return countOf(get, CommLimit, MaxCommLimitMiB, "MiB", "the default")
}

// countOf reads the count in variable name: 1..max of unit, 0 when unset;
// otherwise 0 and an error saying what is used instead (fallback).
func countOf(get Getenv, name string, max int, unit, fallback string) (int, error) {
	v := strings.TrimSpace(get(name))
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > max {
		return 0, fmt.Errorf("%s=%q: want a number of %s from 1 to %d; using %s", name, v, unit, max, fallback)
	}
	return n, nil
}

// World names the test world: "copy" moves every block between cores
// through a copy, as between processes (engine.NewCopyingTransport).
const World = "EBSP_WORLD"

// WorldCopyOf is EBSP_WORLD: true for "copy", false when unset or
// "shared"; anything else is an error, returned to be reported, with
// false.
func WorldCopyOf(get Getenv) (bool, error) {
	switch v := strings.TrimSpace(get(World)); v {
	case "", "shared":
		return false, nil
	case "copy":
		return true, nil
	default:
		return false, fmt.Errorf("%s=%q: want shared or copy; using shared", World, v)
	}
}

// MPIBlock names the largest MPI message the MPI world sends: a larger
// block for one rank goes as several (bytes, default 4 MiB).
const MPIBlock = "EBSP_MPI_BLOCK"

// MPIBlockOf is EBSP_MPI_BLOCK: 64..2^30 bytes; 0 (the default) when
// unset, or on an error, returned to be reported.
func MPIBlockOf(get Getenv) (int, error) {
	v := strings.TrimSpace(get(MPIBlock))
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 64 || n > 1<<30 {
		return 0, fmt.Errorf("%s=%q: want a number of bytes from 64 to 1073741824; using 4 MiB", MPIBlock, v)
	}
	return n, nil
}

// MPITest names the settings for tests of the MPI world:
// "delay=R:MS" (rank R waits MS ms before it sends its blocks in each
// round), "trace" (each rank prints the order in which blocks arrived) and
// "window=N" (N sends under way instead of 64, for tests of their order).
const MPITest = "EBSP_MPI_TEST"

// MPITestSettings is EBSP_MPI_TEST.
type MPITestSettings struct {
	DelayRank, DelayMS int
	Trace              bool
	Window             int
}

// MPITestOf is EBSP_MPI_TEST; no delay (rank -1) when unset, or on an
// error, returned to be reported.
func MPITestOf(get Getenv) (MPITestSettings, error) {
	s := MPITestSettings{DelayRank: -1}
	bad := func() (MPITestSettings, error) {
		return MPITestSettings{DelayRank: -1}, fmt.Errorf("%s=%q: want delay=RANK:MS, trace and/or window=N; using none", MPITest, get(MPITest))
	}
	for _, part := range strings.Split(get(MPITest), ",") {
		part = strings.TrimSpace(part)
		switch {
		case part == "":
		case part == "trace":
			s.Trace = true
		case strings.HasPrefix(part, "window="):
			if _, err := fmt.Sscanf(part, "window=%d", &s.Window); err != nil || s.Window < 1 {
				return bad()
			}
		case strings.HasPrefix(part, "delay="):
			if _, err := fmt.Sscanf(part, "delay=%d:%d", &s.DelayRank, &s.DelayMS); err != nil || s.DelayMS < 0 {
				return bad()
			}
		default:
			return bad()
		}
	}
	return s, nil
}

// RankCores names the cores each MPI rank runs (default 1).
const RankCores = "EBSP_RANK_CORES"

// MPIRanks is set by Open MPI's mpirun to the number of ranks of the job.
const MPIRanks = "OMPI_COMM_WORLD_SIZE"

// MPILocalRanks is set by Open MPI's mpirun to the number of ranks of the
// job on this process's machine.
const MPILocalRanks = "OMPI_COMM_WORLD_LOCAL_SIZE"

// MPILocalRanksOf is the number of ranks of the job on this machine, which
// share its CPUs; 1 when not started by mpirun.
func MPILocalRanksOf(get Getenv) int {
	n, err := strconv.Atoi(strings.TrimSpace(get(MPILocalRanks)))
	if err != nil || n < 1 {
		return 1
	}
	return n
}

// MPIRanksOf is the number of ranks of the Open MPI job this process was
// started in, 0 when it was not started by mpirun.
func MPIRanksOf(get Getenv) int {
	n, err := strconv.Atoi(strings.TrimSpace(get(MPIRanks)))
	if err != nil || n < 1 {
		return 0
	}
	return n
}

// RankCoresOf is EBSP_RANK_CORES: 1..MaxWorkers cores per rank; 1 when
// unset, or on an error, returned to be reported.
func RankCoresOf(get Getenv) (int, error) {
	n, err := countOf(get, RankCores, MaxWorkers, "cores", "1")
	return max(n, 1), err
}

// KernelPathOf is EBSP_KERNEL_PATH: extra directories, colon separated,
// searched for kernel files.
func KernelPathOf(get Getenv) string { return get(KernelPath) }

// StatsOf is EBSP_STATS: "1" (a table per run on stdout), FILE.json (a
// JSON line per run) or "" / "0" (none). Anything else is an error,
// returned to be reported, with "1" (statistics were asked for).
func StatsOf(get Getenv) (string, error) {
	switch v := get(Stats); {
	case v == "" || v == "0" || v == "1" || strings.HasSuffix(v, ".json"):
		return v, nil
	default:
		return "1", fmt.Errorf("%s=%q: want 1, 0 or a FILE.json; using 1", Stats, v)
	}
}

// SchedOf is EBSP_SCHED: true for coroutine cores ("coro", or unset: the
// default), false for a thread per core ("threads"); anything else is an
// error, returned to be reported, with the default.
func SchedOf(get Getenv) (bool, error) {
	switch v := strings.TrimSpace(get(Sched)); v {
	case "", "coro":
		return true, nil
	case "threads":
		return false, nil
	default:
		return true, fmt.Errorf("%s=%q: want coro or threads; using coro", Sched, v)
	}
}

// MaxWorkers is the largest EBSP_WORKERS: one per core of the largest
// mesh (the scheduler never starts more than a run has cores).
const MaxWorkers = emesh.MaxSide * emesh.MaxSide

// WorkersOf is EBSP_WORKERS: the coroutine scheduler's worker threads,
// 1..MaxWorkers; 0 (unset, or an error, returned to be reported) for one
// per CPU.
func WorkersOf(get Getenv) (int, error) {
	return countOf(get, Workers, MaxWorkers, "threads", "one per CPU")
}

// How the coroutine scheduler may rest workers (EBSP_REST).
const (
	RestNever  = 0 // "0": the cores stay spread over the workers
	RestAuto   = 1 // "" or "auto": whichever makes more barrier rounds
	RestAlways = 2 // "1": on one worker whenever no core is stuck (tests)
)

// RestOf is EBSP_REST.
func RestOf(get Getenv) (int, error) {
	switch v := strings.TrimSpace(get(Rest)); v {
	case "", "auto":
		return RestAuto, nil
	case "0":
		return RestNever, nil
	case "1":
		return RestAlways, nil
	default:
		return RestAuto, fmt.Errorf("%s=%q: want auto, 0 or 1; using auto", Rest, v)
	}
}

// SlowdownOf is EBSP_PREDICT_SLOWDOWN: the factor from this host's compute
// time to the Epiphany's in the predicted board time ("": calibrated). A
// value that is not a number >= 0 is returned all the same (the statistics
// say they fell back to the calibrated factor), with an error to report.
func SlowdownOf(get Getenv) (string, error) {
	v := get(Slowdown)
	if v == "" {
		return v, nil
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || !(f >= 0) || math.IsInf(f, 0) {
		return v, fmt.Errorf("%s=%q: want a number >= 0; using the calibrated factor", Slowdown, v)
	}
	return v, nil
}

// TraceOf is EBSP_TRACE: the Chrome Trace Event file to write, or "".
func TraceOf(get Getenv) string { return get(Trace) }

// TimeoutOf is EBSP_TIMEOUT: seconds without progress before the watchdog
// stops a run, a finite number > 0; 0 (unset, "0", or an error, returned
// to be reported) means no watchdog.
func TimeoutOf(get Getenv) (float64, error) {
	v := strings.TrimSpace(get(Timeout))
	if v == "" {
		return 0, nil
	}
	s, err := strconv.ParseFloat(v, 64)
	if err != nil || !(s >= 0) || math.IsInf(s, 0) {
		return 0, fmt.Errorf("%s=%q: want a number of seconds > 0 (0: none); using no watchdog", Timeout, v)
	}
	return s, nil
}

// The range of EBSP_STACK_KB: below MinStackKB a kernel would not get far;
// MaxStackKB keeps the byte count in an int of a 32-bit build.
const (
	MinStackKB = 64
	MaxStackKB = 1 << 20
)

// StackBytesOf is EBSP_STACK_KB in bytes: the stack of each core (thread
// or coroutine), MinStackKB..MaxStackKB KiB. The default (unset, or an
// error, returned to be reported) is 2 MiB, or 256 KiB with 32-bit
// pointers, where 1024 cores' stacks must fit in 4 GiB of address space
// beside everything else.
func StackBytesOf(get Getenv) (int, error) {
	def := 2 << 20
	if unsafe.Sizeof(uintptr(0)) == 4 {
		def = 256 << 10
	}
	v := strings.TrimSpace(get(StackKB))
	if v == "" {
		return def, nil
	}
	kb, err := strconv.Atoi(v)
	if err != nil || kb < MinStackKB || kb > MaxStackKB {
		return def, fmt.Errorf("%s=%q: want a number of KiB from %d to %d; using the default", StackKB, v, MinStackKB, MaxStackKB)
	}
	return kb << 10, nil
}
