// Package bsplib is the standard BSPlib face (include/bsp.h): the SPMD
// sections of a BSPlib program on the emulated cores (bsplib.c: bsp_begin
// adopts the calling thread as pid 0, the calls check their arguments and
// reach the engine's C path) and MulticoreBSP for C's machine settings
// (mcbsp.c). It has no Go API: capi imports it so that its C code is
// linked into the library, and exports the Go entry points it calls
// (capi/bsplib.go: the sections' lifecycle in the engine).
package bsplib

/*
#cgo CFLAGS: -I${SRCDIR}/../../include -std=gnu99 -O2 -Wall -Wextra -Wno-unused-parameter -ftls-model=initial-exec
*/
import "C"
