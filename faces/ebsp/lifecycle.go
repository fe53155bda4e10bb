package ebsp

import (
	"os"
	"path/filepath"
	"unsafe"

	"libebsp/engine"
	"libebsp/env"
	"libebsp/faces/run"
)

// The EBSP host's lifecycle (host_bsp.h): bsp_init finds the kernel,
// bsp_begin loads it on the cores, ebsp_spmd runs them, bsp_end unloads
// them. capi's exports (capi/host.go) call these with its Library.

// Library is what the EBSP host's lifecycle needs of the library beyond
// what every face needs (run.Library): the C core table with the kernel
// loaded, and the MPI job it refuses.
type Library interface {
	run.Library
	// RefuseMPI ends every rank when mpirun started the host several
	// times: an EBSP host and its cores run in one process.
	RefuseMPI(call string)
	// LoadCores makes the C table of m's n cores, each running kernel (a
	// private instance of its file per core, or the registered function),
	// shared with the engine's cores.
	LoadCores(m *engine.Machine, kernel engine.Kernel, n int) error
	// UnloadCores frees the core table and the kernel instances, after
	// the host's pointers into released died with the memories (a crash
	// there is then reported as a use after bsp_end).
	UnloadCores(released Released)
}

// Released are the memories bsp_end unmaps, into which the host may still
// hold pointers (stream areas); nil Ext when none was mapped.
type Released struct {
	Ext, Local         unsafe.Pointer
	ExtSize, LocalSize int
}

// Init is bsp_init of kernel name (nil: the program passed NULL), found
// beside the program, in the working directory or on EBSP_KERNEL_PATH.
func Init(lib Library, name *string) bool {
	m := lib.Machine("bsp_init")
	if m == nil {
		return false
	}
	lib.RefuseMPI("bsp_init")
	if name == nil {
		lib.Complain("bsp_init: kernel name is NULL")
		return false
	}
	exeDir := ""
	if exe, err := os.Executable(); err == nil {
		exeDir = filepath.Dir(exe)
	}
	cwd, _ := os.Getwd()
	dirs := engine.KernelSearchDirs(exeDir, cwd, env.KernelPathOf(lib.Getenv))
	if _, err := m.Init(*name, dirs); err != nil {
		lib.ComplainErr(err)
		return false
	}
	return true
}

// RegisterKernel is ebsp_register_kernel: kernel is the program's own
// function for the cores of name (nil: NULL, which fails). A registration
// the engine does not take (engine.ErrNotRegistered) fails quietly.
func RegisterKernel(lib Library, name *string, kernel unsafe.Pointer) bool {
	m := lib.Machine("ebsp_register_kernel")
	if m == nil || name == nil {
		return false
	}
	if err := m.RegisterKernel(*name, kernel); err != nil {
		if err != engine.ErrNotRegistered {
			lib.Complain(err.Error())
		}
		return false
	}
	return true
}

// Begin is bsp_begin(nprocs): the memories of the cores, and the kernel
// loaded on each.
func Begin(lib Library, nprocs int) bool {
	m := run.MachineForCores(lib, "bsp_begin")
	if m == nil {
		return false
	}
	kernel, err := m.Begin(nprocs)
	if err != nil {
		lib.ComplainErr(err)
		return false
	}
	if err := lib.LoadCores(m, kernel, nprocs); err != nil {
		_ = m.End()
		lib.Complain("bsp_begin: " + err.Error())
		return false
	}
	return true
}

// End is bsp_end: the cores unloaded and their memories unmapped.
func End(lib Library) bool {
	m := lib.Machine("bsp_end")
	if m == nil {
		return false
	}
	var released Released
	if mem := m.Memory(); mem != nil && mem.Cores() > 0 {
		released = Released{Ext: mem.Ext().Base(), ExtSize: mem.Ext().Size(),
			Local: mem.Local(0).Base(), LocalSize: mem.Cores() * mem.Local(0).Size()}
	}
	if err := m.End(); err != nil {
		lib.ComplainErr(err)
		return false
	}
	lib.UnloadCores(released)
	return true
}

// Start starts the run of ebsp_spmd on the loaded cores, with the
// settings in force now.
func Start(lib Library) bool {
	m := lib.Machine("ebsp_spmd")
	if m == nil {
		return false
	}
	lib.Configure(m)
	m.SetStats(lib.Records().On())
	if err := m.StartRun(); err != nil {
		lib.ComplainErr(err)
		return false
	}
	return true
}

// Done ends the run of ebsp_spmd once its cores left: its records, and
// the host's report of a stop (AbortReport).
func Done(lib Library, m *engine.Machine) {
	if abort := run.Finish(lib, m); abort != nil {
		lib.Report(AbortReport(abort, m.Checks()))
	}
}
