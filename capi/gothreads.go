package main

/*
#include "shim.h"
void go_threads_register(void);
*/
import "C"

import "libebsp/capi/gslot"

// goThreadEnter binds a thread that runs cores to a Go M before it runs
// any: the coroutine scheduler gives each core a thread control block of
// its own and copies the worker's g into it (sched_keep_thread_slot), so a
// worker that had never called Go would hand cores an empty g, and Go
// would bind an M to the core's control block instead of the thread.
//
//export goThreadEnter
func goThreadEnter() {}

// Registered from init, after every C constructor: after the faults'
// thread hook, which sets the signal stack Go records at a thread's
// first call.
func init() {
	if offset, ok := gslot.Offset(); ok {
		C.sched_keep_thread_slot(C.long(offset))
	}
	C.go_threads_register()
}
