//go:build !(386 || arm || mips || mipsle)

package emesh

// AddressBits is the width of a pointer in this build.
const AddressBits = 64

// MaxExtSize bounds the external memory (EBSP_EXT_MEM).
const MaxExtSize = 1 << 30
