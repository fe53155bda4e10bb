package emesh

import (
	"fmt"
	"unsafe"
)

// Memory a program hands over (the source of a transfer, a host buffer, a
// message's payload) is touched by the engine's Go code only after
// CheckUser: a fault inside Go code cannot be caught, and ends the process
// with a Go runtime dump instead of a line naming the call. The check
// itself has to touch the memory where a fault can be caught, which Go
// cannot: the C side installs it (SetUserMemoryCheck); without it only
// NULL is caught.

// UserMemoryCheck returns how many of the n bytes at p can be read (or,
// with write, also written): n when all of them.
type UserMemoryCheck func(p unsafe.Pointer, n int, write bool) int

var userMemoryCheck UserMemoryCheck = func(p unsafe.Pointer, n int, _ bool) int {
	if p == nil {
		return 0
	}
	return n
}

// SetUserMemoryCheck installs the check of CheckUser.
func SetUserMemoryCheck(check UserMemoryCheck) { userMemoryCheck = check }

// BadMemory is memory a program handed over that cannot be used: N bytes
// at P, of which the byte at At cannot be read (or written).
type BadMemory struct {
	P, At uintptr
	N     int
	Write bool
}

// CheckUser checks the n bytes at p before the library reads them (or,
// with write, writes them); nil when they can be.
func CheckUser(p unsafe.Pointer, n int, write bool) *BadMemory {
	if n <= 0 {
		return nil
	}
	good := userMemoryCheck(p, n, write)
	if good >= n {
		return nil
	}
	return &BadMemory{P: uintptr(p), At: uintptr(p) + uintptr(good), N: n, Write: write}
}

// Describe names the bad memory as the argument what of a call (e.g.
// "the source"): "the source is NULL but nbytes is 16", "cannot read 16
// bytes of the source at 0x10: no readable memory there".
func (b *BadMemory) Describe(what string) string {
	if b.P == 0 {
		return fmt.Sprintf("%s is NULL but nbytes is %d", what, b.N)
	}
	verb, prep, kind := "read", "of", "readable"
	if b.Write {
		verb, prep, kind = "write", "to", "writable"
	}
	where := "there"
	if b.At != b.P {
		where = fmt.Sprintf("at %#x", b.At)
	}
	return fmt.Sprintf("cannot %s %d bytes %s %s at %#x: no %s memory %s", verb, b.N, prep, what, b.P, kind, where)
}
