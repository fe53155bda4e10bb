package main

// The library's settings: package env reads every EBSP_* variable; this
// file hands it the C library's getenv and passes the values on, to the
// engine as configuration and to the C scheduler as two globals.

/*
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"unsafe"

	"libebsp/env"
	"libebsp/runtime"
)

// cGetenv reads the C library's environment, which sees setenv calls the
// host made after loading the library (Go's os.Getenv copy does not).
func cGetenv(name string) string {
	cs := C.CString(name)
	defer C.free(unsafe.Pointer(cs))
	if v := C.getenv(cs); v != nil {
		return C.GoString(v)
	}
	return ""
}

// configureRun reads the settings of a run (ebsp_spmd, or a BSPlib
// section's bsp_begin) before its cores start, so a host may change them
// between runs.
func configureRun(m *runtime.Machine) {
	level, limit, err := env.CommOf(cGetenv)
	if err != nil {
		complain(err.Error())
	}
	m.CommConfig(level, limit)
	statsTo = env.StatsOf(cGetenv)
	traceTo = env.TraceOf(cGetenv)
	m.SetPredictSlowdown(env.SlowdownOf(cGetenv))
	C.ebsp_stack_bytes = C.size_t(env.StackBytesOf(cGetenv))
	C.ebsp_watchdog_seconds = C.double(env.TimeoutOf(cGetenv))
	coro, err := env.SchedOf(cGetenv)
	if err != nil {
		complain(err.Error())
	}
	C.ebsp_sched_coro = C.int(boolInt(coro))
	C.ebsp_workers = C.int(env.WorkersOf(cGetenv))
	rest, err := env.RestOf(cGetenv)
	if err != nil {
		complain(err.Error())
	}
	C.ebsp_rest = C.int(rest)
}
