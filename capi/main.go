// Command capi is the C ABI of libebsp: built with -buildmode=c-shared it
// exports every function of EBSP's host_bsp.h and e_bsp.h. The Go files
// here are the exports and the boundary between C and Go: a face's
// lifecycle is the face's (faces/*), which the exports call with capi's
// Library (library.go), and the core calls go to the engine in engine/;
// the C files are the shim (thread identity, kernel loading, faults,
// output) and the C path that carries requests in the engine's format
// (direct.*, reqlog.*, hpcache.c), which the faces reach through faces.h.
// The scheduler (sched/), the fixed local addresses of the emulated
// hardware (emesh/lowmem/) and the faces (faces/) are packages of their
// own, linked in through imports.
package main

/*
#cgo CFLAGS: -I${SRCDIR}/../include -std=gnu99 -O2 -Wall -Wextra -Wno-unused-parameter -ftls-model=initial-exec
#cgo LDFLAGS: -ldl -lpthread
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"unsafe"

	_ "libebsp/emesh/lowmem" // its C code: the fixed local addresses
	"libebsp/engine"
	_ "libebsp/faces/qmp" // its C code: the QMP calls (include/qmp.h); it has no Go half
	_ "libebsp/sched"     // its C code: the scheduler
)

func main() {}

// say prints text on the C stdout, in order with the program's own printf.
func say(text string) {
	cs := C.CString(text)
	C.out_stdout(cs)
	C.free(unsafe.Pointer(cs))
}

// complain prints a host-side error on stderr (after flushing stdout).
func complain(text string) {
	cs := C.CString("ebsp: ERROR: " + text + "\n")
	C.out_stderr(cs)
	C.free(unsafe.Pointer(cs))
}

// complainErr prints a host-side error: a call made out of order exactly as
// the board printed it (engine.BoardError), anything else like complain.
func complainErr(err error) {
	var board *engine.BoardError
	if errors.As(err, &board) {
		cs := C.CString(board.Text + "\n")
		C.out_stderr(cs)
		C.free(unsafe.Pointer(cs))
		return
	}
	complain(err.Error())
}

// coreLine prints "$PP: text" like ebsp_message.
func coreLine(pid int, text string) {
	cs := C.CString(text)
	C.out_core_line(C.int(pid), cs)
	C.free(unsafe.Pointer(cs))
}

// standardRun reports whether a BSPlib section owns the machine.
func standardRun() bool { return machine != nil && machine.Face().ReportsToStderr }

// diagLine prints a diagnostic about core pid: "$PP: text" on stdout for
// the EBSP face (as on the board, where the host reads it), on stderr for
// the BSPlib face, whose stdout is the program's own output.
func diagLine(pid int, text string) {
	if !standardRun() {
		coreLine(pid, text)
		return
	}
	diagSay(fmt.Sprintf("$%02d: %s\n", pid, text))
}

// diagSay prints a report about the run as a whole, where diagLine would.
func diagSay(text string) {
	if !standardRun() {
		say(text)
		return
	}
	cs := C.CString(text)
	C.out_stderr(cs)
	C.free(unsafe.Pointer(cs))
}

func boolInt(ok bool) C.int {
	if ok {
		return 1
	}
	return 0
}
