// Package sched is the scheduler (scheduler.h): how the cores of a run
// run, as a thread each or as coroutines on a few worker threads, and what
// depends on that: core identity, the clock, the barrier and host sync,
// the one wait, stopping, the watchdog. It names no feature: features
// register run hooks (sched_add_hooks), and its files call nothing outside
// themselves but those hooks and capi's output.c. It has no Go API: capi
// imports it so that its C code is linked into the library.
package sched

/*
#cgo CFLAGS: -I${SRCDIR}/../include -std=gnu99 -O2 -Wall -Wextra -Wno-unused-parameter -ftls-model=initial-exec
*/
import "C"
