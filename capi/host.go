package main

/*
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"fmt"
	"runtime"
	"sync"
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
		machine = wiredMachine(mesh, &C.ebsp_outer_section)
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
	return boolInt(ebsp.Init(&library{}, goStringOrNil(name)))
}

// goRegisterKernel is ebsp_register_kernel (faces/ebsp/host.c checks the name
// first).
//
//export goRegisterKernel
func goRegisterKernel(name *C.char, kernel unsafe.Pointer) C.int {
	return boolInt(ebsp.RegisterKernel(&library{}, goStringOrNil(name), kernel))
}

// goStringOrNil is s as a Go string, nil for NULL.
func goStringOrNil(s *C.char) *string {
	if s == nil {
		return nil
	}
	gs := C.GoString(s)
	return &gs
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
func goHostBegin(nprocs C.int) C.int { return boolInt(ebsp.Begin(&library{}, int(nprocs))) }

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
func goHostEnd() C.int { return boolInt(ebsp.End(&library{})) }

//export goSpmdStart
func goSpmdStart() *C.struct_ebsp_core {
	if !ebsp.Start(&library{}) {
		return nil
	}
	return current.cores
}

//export goSpmdDone
func goSpmdDone(ok C.int) { ebsp.Done(&library{}, machine) }

// goEndCallback tells the machine that ebsp_spmd calls the host's end
// callback (running 1) or that it returned.
//
//export goEndCallback
func goEndCallback(running C.int) {
	machine.EndCallback(running != 0)
}
