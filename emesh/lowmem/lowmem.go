// Package lowmem is the emulated hardware's fixed local addresses, in C
// (lowmem.h): a kernel's load or store at an address of its local memory,
// as on the board, faults on the host and is carried out on the core's
// buffer, by decoding the faulting instruction (x86insn.c) and running it
// again on a copy (lowmem_amd64.S). It is a package of its own beside the
// pure-Go emesh, which the engine's tests, fuzzing and 32-bit runs use
// without cgo. It has no Go API: capi imports it so that its C code is
// linked into the library, and its fault handler calls lowmem_emulate.
package lowmem

/*
#cgo CFLAGS: -std=gnu99 -O2 -Wall -Wextra -Wno-unused-parameter
*/
import "C"
