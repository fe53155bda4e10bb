package main

// The library's settings: package env reads every EBSP_* variable; this
// file hands it the C library's getenv and passes the values on, to the
// engine as configuration and to the C scheduler as globals set before each run.

/*
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"unsafe"

	"libebsp/engine"
	"libebsp/env"
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

// Getenv is cGetenv for a face's lifecycle (faces/run.Library), which
// reads its settings through package env too.
func (*library) Getenv(name string) string { return cGetenv(name) }

// configureRun reads the settings of a run (ebsp_spmd, or a BSPlib
// section's bsp_begin) before its cores start, so a host may change them
// between runs.
func configureRun(m *engine.Machine) {
	level, err := env.ChecksOf(cGetenv)
	report(err)
	limit, err := env.CommLimitOf(cGetenv)
	report(err)
	m.CommConfig(level, limit)
	report(records.Read(cGetenv))
	slowdown, err := env.SlowdownOf(cGetenv)
	report(err)
	m.SetPredictSlowdown(slowdown)
	stack, err := env.StackBytesOf(cGetenv)
	report(err)
	C.ebsp_stack_bytes = C.size_t(stack)
	timeout, err := env.TimeoutOf(cGetenv)
	report(err)
	C.ebsp_watchdog_seconds = C.double(timeout)
	coro, err := env.SchedOf(cGetenv)
	report(err)
	C.ebsp_sched_coro = C.int(boolInt(coro))
	workers, err := env.WorkersOf(cGetenv)
	report(err)
	C.ebsp_workers = C.int(workers)
	rest, err := env.RestOf(cGetenv)
	report(err)
	C.ebsp_rest = C.int(rest)
	copyWorld, err := env.WorldCopyOf(cGetenv)
	report(err)
	chooseWorld(m, copyWorld)
}

// report prints a setting that could not be used, and what is used instead.
func report(err error) {
	if err != nil {
		complain(err.Error())
	}
}
