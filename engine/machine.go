// Package engine is the BSP engine of libebsp: the host's view of the
// machine (init, begin, runs, end), each core's superstep state, and the
// rules of a superstep. It is pure Go and knows nothing of cgo: the C ABI
// (capi/) drives it and blocks cores between the steps it asks for.
package engine

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"

	"libebsp/emesh"
)

// HostState is where the host program is in the EBSP lifecycle.
type HostState int

// The host lifecycle: bsp_init -> bsp_begin -> ebsp_spmd (repeatable) -> bsp_end.
// bsp_end may also follow bsp_init directly.
const (
	HostIdle HostState = iota
	HostInitialized
	HostBegun
	HostRunning
)

func (s HostState) String() string {
	return [...]string{"idle", "initialized", "begun", "running"}[s]
}

// BoardError is a host call made out of order. EBSP 1.0 on the board
// printed Text on stderr, without any prefix, and the call returned 0;
// libebsp prints the same.
type BoardError struct{ Text string }

func (e *BoardError) Error() string { return e.Text }

// The out-of-order host calls, with the board's texts.
var (
	ErrInitTwice  = &BoardError{"ERROR: bsp_init called when already initialized."}
	ErrBeginOrder = &BoardError{"ERROR: bsp_begin called twice or called before bsp_init"}
	ErrSpmdOrder  = &BoardError{"ERROR: ebsp_spmd called before bsp_begin"}
	ErrEndOrder   = &BoardError{"ERROR: bsp_end called when bsp was not initialized."}
)

// errBeginNprocs is bsp_begin with a core count outside 1..cores.
func errBeginNprocs(nprocs int) error {
	return &BoardError{fmt.Sprintf("ERROR: bsp_begin called with nprocs = %d.", nprocs)}
}

// Kernel is what bsp_init selected: a file to load per core, or a function
// registered in the host process.
type Kernel struct {
	Name string
	Path string         // kernel file; empty for a registered kernel
	Func unsafe.Pointer // registered kernel function (C ABI); nil for a file
}

// Registered reports whether the kernel is a function rather than a file.
func (k Kernel) Registered() bool { return k.Func != nil }

// Machine is the emulated Epiphany system as the host sees it.
type Machine struct {
	mu         sync.Mutex
	mesh       emesh.Mesh
	state      HostState
	kernel     Kernel
	registered map[string]unsafe.Pointer
	cores      []*Core
	runs       int
	ending     bool // the host's end callback runs: the run's ebsp_spmd has not returned
	abort      *Abort
	aborted    atomic.Bool // abort != nil, readable without mu on hot paths
	comm       machineComm // communication engine (comm.go)
	memory     memoryState
	probes     Probes
	stats      runStats

	// standard is true while a section begun by BeginStandard (the BSPlib
	// face, include/bsp.h) owns the machine: no host (bsplib.go).
	standard bool
	saved    standardSaved // the EBSP host's state during such a section
	face     Face          // what the face that owns the machine says (face.go)
}

// Abort records the first bsp_abort or fatal error of a run.
type Abort struct {
	Reason    string // "bsp_abort", "BSP ERROR", "deadlock"
	Pid       int    // -1 when no single core is to blame
	Superstep int
	Message   string
}

// Report is the line that tells a stopped run: "ebsp: run stopped: <reason>
// [on core PP in superstep N]".
func (a *Abort) Report() string {
	where := ""
	if a.Pid >= 0 {
		where = fmt.Sprintf(" on core %02d in superstep %d", a.Pid, a.Superstep)
	}
	return fmt.Sprintf("ebsp: run stopped: %s%s\n", a.Reason, where)
}

// NewMachine returns an idle machine with the given mesh.
func NewMachine(mesh emesh.Mesh) *Machine {
	m := &Machine{mesh: mesh, registered: map[string]unsafe.Pointer{}, face: Face{RunName: "run %d"}}
	m.comm.setChecks(CheckBoard)
	return m
}

// Mesh is the emulated core grid.
func (m *Machine) Mesh() emesh.Mesh { return m.mesh }

// State is the host's lifecycle state.
func (m *Machine) State() HostState {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.state
}

// ErrNotRegistered: a removal of a name that has no registration
// (ebsp_register_kernel returns 0, as its header says, without a message).
var ErrNotRegistered = errors.New("ebsp_register_kernel: no kernel registered under that name")

// RegisterKernel makes fn available to bsp_init under name; nil removes it.
func (m *Machine) RegisterKernel(name string, fn unsafe.Pointer) error {
	if name == "" {
		return fmt.Errorf("ebsp_register_kernel: empty name")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if fn == nil {
		if _, ok := m.registered[name]; !ok {
			return ErrNotRegistered
		}
		delete(m.registered, name)
	} else {
		m.registered[name] = fn
	}
	return nil
}

// Init selects the kernel: a registered function of that name, else a file
// found in dirs (see KernelSearchDirs). Only an idle machine can be
// initialised; a failed Init leaves it idle.
func (m *Machine) Init(name string, dirs []string) (Kernel, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.refusedHost("bsp_init"); err != nil {
		return Kernel{}, err
	}
	if m.state != HostIdle {
		return Kernel{}, ErrInitTwice
	}
	if fn, ok := m.registered[name]; ok {
		m.kernel = Kernel{Name: name, Func: fn}
	} else {
		path, err := FindKernelFile(name, dirs)
		if err != nil {
			return Kernel{}, fmt.Errorf("bsp_init: %w", err)
		}
		m.kernel = Kernel{Name: name, Path: path}
	}
	m.state = HostInitialized
	return m.kernel, nil
}

// Begin reserves nprocs cores for the selected kernel.
func (m *Machine) Begin(nprocs int) (Kernel, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.refusedHost("bsp_begin"); err != nil {
		return Kernel{}, err
	}
	if m.state != HostInitialized {
		return Kernel{}, ErrBeginOrder
	}
	if nprocs < 1 || nprocs > m.mesh.Cores() {
		return Kernel{}, errBeginNprocs(nprocs)
	}
	if err := m.beginMemory(nprocs); err != nil {
		return Kernel{}, fmt.Errorf("bsp_begin: %w", err)
	}
	m.cores = make([]*Core, nprocs)
	for pid := range m.cores {
		m.cores[pid] = newCore(m, pid)
	}
	m.state = HostBegun
	return m.kernel, nil
}

// Available is the host's bsp_nprocs: the cores of the mesh once bsp_init
// has succeeded, 0 before it and after bsp_end (as on the board).
func (m *Machine) Available() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.state == HostIdle {
		return 0
	}
	return m.mesh.Cores()
}

// Nprocs is the number of cores of the current bsp_begin (0 before).
func (m *Machine) Nprocs() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.cores)
}

// Core returns core pid of the current bsp_begin, or nil.
func (m *Machine) Core(pid int) *Core {
	if pid < 0 || pid >= len(m.cores) {
		return nil
	}
	return m.cores[pid]
}

// StartRun prepares every core for one ebsp_spmd. Unlike the board, which
// runs a loaded kernel once, it may be called again after a run.
func (m *Machine) StartRun() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch m.state {
	case HostIdle, HostInitialized:
		return ErrSpmdOrder
	}
	if m.inRun() {
		return errRunInProgress
	}
	for _, c := range m.cores {
		c.reset()
	}
	m.startRunMemory()
	m.abort = nil
	m.aborted.Store(false)
	if err := m.startComm(); err != nil {
		return err
	}
	m.startStats()
	for _, c := range m.cores {
		c.publishDirectMode() // after the checks, the transport and statistics are set
	}
	m.runs++
	m.state = HostRunning
	return nil
}

// errRunInProgress: ebsp_spmd called from a callback of a run. From the
// end callback a new run would end in the same callback, for ever.
var errRunInProgress = errors.New("ebsp_spmd: a run is already in progress")

// inRun: the cores run, or the end callback of their run does.
func (m *Machine) inRun() bool { return m.state == HostRunning || m.ending }

// EndCallback tells that the host's end callback, which ebsp_spmd calls
// after the run, starts (true) or returned: meanwhile ebsp_spmd and
// bsp_end are refused as during the run.
func (m *Machine) EndCallback(running bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.ending = running
}

// FinishRun ends the run; it returns the abort of the run, if any.
func (m *Machine) FinishRun() *Abort {
	m.finishRunMemory()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.state = HostBegun
	m.finishComm()
	return m.abort
}

// errEndInRun: bsp_end from a callback would unload the cores that the
// run's ebsp_spmd still uses.
var errEndInRun = errors.New("bsp_end: called during a run")

// End releases the cores and the kernel selection; the next run needs
// bsp_init and bsp_begin again. After bsp_init alone it only forgets the
// kernel, silently, as the board did.
func (m *Machine) End() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch m.state {
	case HostIdle:
		return ErrEndOrder
	case HostInitialized:
		m.kernel, m.state = Kernel{}, HostIdle
		return nil
	}
	if m.inRun() {
		return errEndInRun
	}
	m.releaseComm()
	m.endMemory()
	m.cores = nil
	m.kernel, m.state = Kernel{}, HostIdle
	return nil
}

// RecordAbort keeps the first abort of the run; it reports whether this
// one was the first.
func (m *Machine) RecordAbort(pid int, reason, message string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.abort != nil {
		return false
	}
	step := 0
	if c := m.Core(pid); c != nil {
		step = c.reportStep()
	}
	m.abort = &Abort{Reason: reason, Pid: pid, Superstep: step, Message: message}
	m.aborted.Store(true)
	return true
}

// Aborted reports whether the current run is being stopped. Lock-free:
// every core-side call asks.
func (m *Machine) Aborted() bool { return m.aborted.Load() }
