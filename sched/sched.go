// Package sched is the scheduler (scheduler.h): how the cores of a run
// run, as a thread each or as coroutines on a few worker threads, and what
// depends on that: core identity, the clock, the barrier and host sync,
// the one wait, stopping, the watchdog. It is a leaf: it names no feature,
// includes and imports nothing of the library (gotests/layers_test.go), and
// features act in its runs through the hooks they register
// (sched_add_hooks). It has no Go API: capi imports it so that its C code
// is linked into the library.
package sched

/*
#cgo CFLAGS: -std=gnu99 -O2 -Wall -Wextra -Wno-unused-parameter -ftls-model=initial-exec
*/
import "C"
