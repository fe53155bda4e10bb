// Package gotests drives the built library (lib/libebsp.so) from Go through
// purego, without cgo: the way a Go host program uses libebsp.
package gotests

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/ebitengine/purego"
)

// lib holds the library's functions, bound once per test binary.
var lib struct {
	BspInit             func(name string, argc int32, argv uintptr) int32
	BspBegin            func(n int32) int32
	EbspSpmd            func() int32
	BspEnd              func() int32
	BspNprocs           func() int32
	BspPid              func() int32
	BspSync             func()
	EbspBarrier         func()
	EbspRegisterKernel  func(name string, fn uintptr) int32
	EbspSetSyncCallback func(fn uintptr)
	EbspHostSync        func()
}

var (
	loadOnce sync.Once
	loadErr  error
	libPath  string
)

func repoRoot() string {
	root, _ := filepath.Abs("..")
	return root
}

// loadLib opens lib/libebsp.so globally (kernels resolve bsp_* against it).
func loadLib(t testing.TB) {
	t.Helper()
	loadOnce.Do(func() {
		libPath = filepath.Join(repoRoot(), "lib", "libebsp.so")
		if _, err := os.Stat(libPath); err != nil {
			loadErr = err
			return
		}
		h, err := purego.Dlopen(libPath, purego.RTLD_NOW|purego.RTLD_GLOBAL)
		if err != nil {
			loadErr = err
			return
		}
		bind := func(fptr any, name string) { purego.RegisterLibFunc(fptr, h, name) }
		bind(&lib.BspInit, "bsp_init")
		bind(&lib.BspBegin, "bsp_begin")
		bind(&lib.EbspSpmd, "ebsp_spmd")
		bind(&lib.BspEnd, "bsp_end")
		bind(&lib.BspNprocs, "bsp_nprocs")
		bind(&lib.BspPid, "bsp_pid")
		bind(&lib.BspSync, "bsp_sync")
		bind(&lib.EbspBarrier, "ebsp_barrier")
		bind(&lib.EbspRegisterKernel, "ebsp_register_kernel")
		bind(&lib.EbspSetSyncCallback, "ebsp_set_sync_callback")
		bind(&lib.EbspHostSync, "ebsp_host_sync")
	})
	if loadErr != nil {
		t.Fatalf("cannot load the library (run `make lib` first): %v", loadErr)
	}
}

// callbacks: purego allows a bounded number of callbacks per process, so
// each Go kernel is made into a C function once.
var (
	callbacksMu sync.Mutex
	callbacks   = map[string]uintptr{}
)

func callback(name string, fn any) uintptr {
	callbacksMu.Lock()
	defer callbacksMu.Unlock()
	if cb, ok := callbacks[name]; ok {
		return cb
	}
	cb := purego.NewCallback(fn)
	callbacks[name] = cb
	return cb
}

// runKernel registers kernel under name and runs it on n cores.
func runKernel(t testing.TB, name string, cb uintptr, n int) int32 {
	t.Helper()
	if lib.EbspRegisterKernel(name, cb) != 1 {
		t.Fatal("ebsp_register_kernel failed")
	}
	if lib.BspInit(name, 0, 0) != 1 {
		t.Fatal("bsp_init failed")
	}
	if lib.BspBegin(int32(n)) != 1 {
		t.Fatal("bsp_begin failed")
	}
	defer lib.BspEnd()
	return lib.EbspSpmd()
}
