// Package qmp is the QMP face (include/qmp.h): QMP 2.5's message passing
// for lattice QCD programs, each node a core with a private copy of the
// program (node_load.c), messages and collectives on the LQCD face's
// channels and sums. It has no Go API: capi imports it so that its C code
// is linked into the library.
package qmp

/*
#cgo CFLAGS: -I${SRCDIR}/../../include -std=gnu99 -O2 -Wall -Wextra -Wno-unused-parameter -ftls-model=initial-exec
#cgo LDFLAGS: -ldl
*/
import "C"
