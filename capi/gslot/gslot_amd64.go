package gslot

// tlsOffset returns the offset the assembler's TLS pseudo-register stands
// for: in a shared build (c-shared), the initial-exec TP offset of
// runtime.tlsg, read from the GOT.
func tlsOffset() int64

func offset0() (int64, bool) {
	return tlsOffset(), true
}
