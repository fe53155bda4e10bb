package main

/*
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"
	"unsafe"

	"libebsp/emesh"
	"libebsp/engine"
	"libebsp/env"
	"libebsp/faces/ebsp" // its C code (the EBSP calls), its Face and its Go half
)

// session is what bsp_begin loaded: the C core table and one kernel
// instance per core (none for a registered kernel).
type session struct {
	cores     *C.struct_ebsp_core
	instances []unsafe.Pointer
}

var (
	machineOnce sync.Once
	machine     *engine.Machine
	machineErr  error
	current     session
)

// theMachine creates the machine on first use, from EBSP_MESH.
func theMachine() (*engine.Machine, error) {
	machineOnce.Do(func() {
		mesh, err := env.MeshOf(cGetenv)
		if err != nil {
			machineErr = fmt.Errorf("%s: %v", emesh.MeshEnv, err)
			return
		}
		if mesh, err = joinMPI(mesh, cGetenv); err != nil {
			machineErr = err
			return
		}
		machine = engine.NewMachine(mesh)
		machine.SetProbes(engine.Probes{
			Arrivals: func(pid int) int { return int(C.sched_arrivals(C.int(pid))) },
			Print:    coreLine,
		})
		machine.ShareSyncFlags(flagsOf(&C.ebsp_outer_section))
		machine.SetDirectDRMA(directDRMA{})
		machine.SetFace(ebsp.Face)
		engine.ShowSmallVariables(uintptr(C.ebsp_small_variables()), uintptr(C.LOWEST_ADDRESS))
	})
	return machine, machineErr
}

// machineErrSaid: the machine's error (a bad EBSP_MESH) is reported once,
// by the first call that needs the machine: the mesh is read once per
// program, and every later call fails for the same reason.
var machineErrSaid sync.Once

// hostMachine is the machine for a host call, or nil when there is none
// (the call then fails; the first one to fail says why).
func hostMachine(call string) *engine.Machine {
	m, err := theMachine()
	if err != nil {
		machineErrSaid.Do(func() { complain(call + ": " + err.Error()) })
		return nil
	}
	return m
}

// goInit is bsp_init (faces/ebsp/host.c checks the name first).
//
//export goInit
func goInit(name *C.char, argc C.int, argv **C.char) C.int {
	_, _ = argc, argv // EBSP ignores them too
	m := hostMachine("bsp_init")
	if m == nil {
		return 0
	}
	refuseMPI("bsp_init")
	if name == nil {
		complain("bsp_init: kernel name is NULL")
		return 0
	}
	exeDir := ""
	if exe, err := os.Executable(); err == nil {
		exeDir = filepath.Dir(exe)
	}
	cwd, _ := os.Getwd()
	dirs := engine.KernelSearchDirs(exeDir, cwd, env.KernelPathOf(cGetenv))
	if _, err := m.Init(C.GoString(name), dirs); err != nil {
		complainErr(err)
		return 0
	}
	return 1
}

// goRegisterKernel is ebsp_register_kernel (faces/ebsp/host.c checks the name
// first).
//
//export goRegisterKernel
func goRegisterKernel(name *C.char, kernel unsafe.Pointer) C.int {
	m := hostMachine("ebsp_register_kernel")
	if m == nil || name == nil {
		return 0
	}
	if err := m.RegisterKernel(C.GoString(name), kernel); err != nil {
		if err != engine.ErrNotRegistered {
			complain(err.Error())
		}
		return 0
	}
	return 1
}

//export goHostNprocs
func goHostNprocs() C.int {
	m := hostMachine("bsp_nprocs")
	if m == nil {
		return 0
	}
	return C.int(m.Available())
}

//export goHostBegin
func goHostBegin(nprocs C.int) C.int {
	m := hostMachine("bsp_begin")
	if m == nil {
		return 0
	}
	memCfg, err := env.MemoryOf(cGetenv)
	if err != nil {
		complain("bsp_begin: " + err.Error())
		return 0
	}
	m.SetMemoryConfig(memCfg)
	kernel, err := m.Begin(int(nprocs))
	if err != nil {
		complainErr(err)
		return 0
	}
	s, err := loadCores(kernel, int(nprocs))
	if err != nil {
		_ = m.End()
		complain("bsp_begin: " + err.Error())
		return 0
	}
	cores := unsafe.Slice(s.cores, int(nprocs))
	for i := range cores {
		shareCore(m.Core(i), &cores[i])
		cores[i].dma_slot = m.Memory().DMA(i).Slot()
		local := m.Memory().Local(i)
		cores[i].local_base, cores[i].local_size = (*C.uchar)(local.Base()), C.size_t(local.Size())
	}
	current = s
	C.ebsp_outer_section.nprocs, C.ebsp_outer_section.cores = nprocs, s.cores
	ensurePsFor(int(nprocs))
	return 1
}

// maxPs bounds GOMAXPROCS: past a few hundred, Ps only add GC workers.
const maxPs = 256

// ensurePsFor gives every core thread its own P when it enters Go: with
// fewer Ps than threads, a core calling into Go parks until a P frees up,
// which made an empty bsp_sync 3-7x slower (bench/core, 16 and 64 cores).
func ensurePsFor(nprocs int) {
	want := min(nprocs+1, maxPs)
	if runtime.GOMAXPROCS(0) < want {
		runtime.GOMAXPROCS(want)
	}
}

// loadCores builds the C core table: a private kernel instance per core,
// or the registered function for all.
func loadCores(kernel engine.Kernel, n int) (session, error) {
	s := session{cores: C.cores_alloc(C.int(n))}
	if s.cores == nil {
		return session{}, fmt.Errorf("out of memory for %d cores", n)
	}
	cores := unsafe.Slice(s.cores, n)
	if kernel.Registered() {
		for i := range cores {
			cores[i].sched.entry = C.ebsp_kernel_fn(kernel.Func)
		}
		return s, nil
	}
	C.loader_make_global()
	path := C.CString(kernel.Path)
	defer C.free(unsafe.Pointer(path))
	var errbuf [1024]C.char
	for i := range cores {
		h := C.loader_open_instance(path, &errbuf[0], C.size_t(len(errbuf)))
		if h == nil {
			s.unload()
			return session{}, fmt.Errorf("loading %s for core %d: %s", kernel.Path, i, C.GoString(&errbuf[0]))
		}
		s.instances = append(s.instances, h)
		cores[i].sched.entry = C.loader_entry(h)
		cores[i].sched.can_unwind = 1
	}
	return s, nil
}

func (s *session) unload() {
	for _, h := range s.instances {
		C.loader_close_instance(h)
	}
	if s.cores != nil {
		C.cores_free(s.cores)
	}
	*s = session{}
}

//export goHostEnd
func goHostEnd() C.int {
	m := hostMachine("bsp_end")
	if m == nil {
		return 0
	}
	// The host may keep pointers into the memories End unmaps (stream
	// areas): its crash there is reported as a use after bsp_end.
	var ext, local unsafe.Pointer
	var extSize, localSize int
	if mem := m.Memory(); mem != nil && mem.Cores() > 0 {
		ext, extSize = mem.Ext().Base(), mem.Ext().Size()
		local, localSize = mem.Local(0).Base(), mem.Cores()*mem.Local(0).Size()
	}
	if err := m.End(); err != nil {
		complainErr(err)
		return 0
	}
	if ext != nil {
		C.faults_released(ext, C.size_t(extSize), local, C.size_t(localSize))
	}
	current.unload()
	C.ebsp_outer_section.nprocs, C.ebsp_outer_section.cores = 0, nil
	return 1
}

//export goSpmdStart
func goSpmdStart() *C.struct_ebsp_core {
	m := hostMachine("ebsp_spmd")
	if m == nil {
		return nil
	}
	configureRun(m)
	m.SetStats((statsTo != "" && statsTo != "0") || traceTo != "")
	if err := m.StartRun(); err != nil {
		complainErr(err)
		return nil
	}
	return current.cores
}

// statsTo is EBSP_STATS of the current run: "1" (a table on stdout) or a
// .json file that gets one line per run.
var statsTo string

func reportStats(sum engine.RunSummary) {
	if !strings.HasSuffix(statsTo, ".json") {
		diagSay(sum.Table())
		return
	}
	f, err := os.OpenFile(statsTo, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err == nil {
		_, err = f.Write(append(sum.JSON(), '\n'))
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		complain(fmt.Sprintf("%s=%q: %v; this run's statistics are not written", engine.StatsEnv, statsTo, unwrapPath(err)))
	}
}

// unwrapPath drops the file name from an error of package os: the
// message names the variable and its value (the file) already.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("cannot %s it: %w", pe.Op, pe.Err)
	}
	return err
}

// traceTo is EBSP_TRACE of the current run; trace holds the events of the
// runs so far (the file is rewritten after each run), traceZero their clock.
var (
	traceTo   string
	trace     []any
	traceZero time.Time
)

func writeTrace(m *engine.Machine) {
	if trace == nil {
		traceZero = m.RunStartedAt()
	}
	offset := float64(m.RunStartedAt().Sub(traceZero).Nanoseconds()) / 1e3
	trace = append(trace, m.TraceEvents(offset)...)
	b, err := json.Marshal(map[string]any{"traceEvents": trace, "displayTimeUnit": "ns"})
	if err == nil {
		err = os.WriteFile(traceTo, b, 0o644)
	}
	if err != nil {
		complain(fmt.Sprintf("%s=%q: %v; the trace is not written", engine.TraceEnv, traceTo, unwrapPath(err)))
	}
}

//export goSpmdDone
func goSpmdDone(ok C.int) {
	abort := finishRun()
	if abort != nil {
		say(ebsp.AbortReport(abort, machine.Checks()))
	}
}

// goEndCallback tells the machine that ebsp_spmd calls the host's end
// callback (running 1) or that it returned.
//
//export goEndCallback
func goEndCallback(running C.int) {
	machine.EndCallback(running != 0)
}

// finishRun ends a run of either face: its statistics and trace, and the
// abort that stopped it (nil when none).
func finishRun() *engine.Abort {
	abort := machine.FinishRun()
	if statsTo != "" && statsTo != "0" {
		reportStats(machine.Summary()) // on stderr (diagSay) in a BSPlib section
	}
	if traceTo != "" {
		writeTrace(machine)
	}
	return abort
}
