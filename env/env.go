// Package env is the one place where libebsp reads its EBSP_* environment
// variables. The engine packages (emesh, runtime) take configuration
// values, never the environment; the C shim gets its two (stack size,
// watchdog) from capi, which reads them here. README.md's table of
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
	"strconv"
	"strings"
	"unsafe"

	"libebsp/emesh"
	"libebsp/runtime"
)

// Getenv reads one variable ("" when unset).
type Getenv func(name string) string

// The variables' names. Those that an engine message names are defined
// beside the message (emesh, runtime) and only read here.
const (
	Mesh       = emesh.MeshEnv         // the mesh, ROWSxCOLS
	KernelPath = runtime.KernelPathEnv // extra kernel directories
	StackKB    = "EBSP_STACK_KB"       // stack of each core thread, KiB
	Checks     = runtime.ChecksEnv     // board, strict or 0
	CommLimit  = runtime.CommLimitEnv  // MiB one core may queue per superstep
	Timeout    = "EBSP_TIMEOUT"        // watchdog, seconds
	LocalMem   = emesh.LocalMemEnv     // local memory per core
	ExtMem     = emesh.ExtMemEnv       // external memory
	Stats      = runtime.StatsEnv      // superstep statistics
	Trace      = runtime.TraceEnv      // Chrome trace file
	DMASync    = emesh.DMASyncEnv      // DMA transfers copied at the push
	Slowdown   = emesh.SlowdownEnv     // host-to-Epiphany compute factor of the predicted board time
	Sched      = "EBSP_SCHED"          // coro or threads
	Workers    = "EBSP_WORKERS"        // coroutine worker threads
	Rest       = "EBSP_REST"           // cores on one worker when that is faster
)

// Vars lists every variable the library reads, in README.md's order.
var Vars = []string{Mesh, KernelPath, Sched, Workers, Rest, StackKB, Checks, CommLimit, Timeout, LocalMem, ExtMem, Stats, Slowdown, Trace, DMASync}

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

// CommOf is EBSP_CHECKS and EBSP_COMM_LIMIT_MB: the check level (board on
// an error, which is returned to be reported) and the per-core queue
// limit in MiB (0: the engine's default).
func CommOf(get Getenv) (runtime.CheckLevel, int, error) {
	limit, _ := strconv.Atoi(strings.TrimSpace(get(CommLimit)))
	level, err := runtime.ParseCheckLevel(get(Checks))
	return level, limit, err
}

// KernelPathOf is EBSP_KERNEL_PATH: extra directories, colon separated,
// searched for kernel files.
func KernelPathOf(get Getenv) string { return get(KernelPath) }

// StatsOf is EBSP_STATS: "1" (a table per run on stdout), FILE.json (a
// JSON line per run) or "" / "0" (none).
func StatsOf(get Getenv) string { return get(Stats) }

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

// WorkersOf is EBSP_WORKERS: the coroutine scheduler's worker threads, 0
// (unset, or not a positive number) for one per CPU.
func WorkersOf(get Getenv) int {
	n, err := strconv.Atoi(strings.TrimSpace(get(Workers)))
	if err != nil || n < 1 {
		return 0
	}
	return n
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
// time to the Epiphany's in the predicted board time ("": calibrated).
func SlowdownOf(get Getenv) string { return get(Slowdown) }

// TraceOf is EBSP_TRACE: the Chrome Trace Event file to write, or "".
func TraceOf(get Getenv) string { return get(Trace) }

// TimeoutOf is EBSP_TIMEOUT: seconds without progress before the watchdog
// stops a run; 0 (unset, or not a number) means no watchdog.
func TimeoutOf(get Getenv) float64 {
	s, err := strconv.ParseFloat(strings.TrimSpace(get(Timeout)), 64)
	if err != nil || s < 0 {
		return 0
	}
	return s
}

// StackBytesOf is EBSP_STACK_KB in bytes: the stack of each core thread.
// Values of 64 KiB or less are ignored (a kernel would not get far);
// the default is 2 MiB, or 256 KiB with 32-bit pointers, where 1024
// cores' stacks must fit in 4 GiB of address space beside everything
// else.
func StackBytesOf(get Getenv) int {
	kb, err := strconv.Atoi(strings.TrimSpace(get(StackKB)))
	if err == nil && kb > 64 && kb <= maxStackKB {
		return kb << 10
	}
	if unsafe.Sizeof(uintptr(0)) == 4 {
		return 256 << 10
	}
	return 2 << 20
}

// maxStackKB keeps the byte count in an int of a 32-bit build.
const maxStackKB = 1 << 20
