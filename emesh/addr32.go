//go:build 386 || arm || mips || mipsle

package emesh

// AddressBits is the width of a pointer in this build: 32 in `make lib32`,
// like the board's ARM host and Epiphany cores.
const AddressBits = 32

// MaxExtSize bounds the external memory (EBSP_EXT_MEM). The whole process
// lives in 4 GiB of address space here: 256 MiB of external memory (the
// board had 32 MiB) leaves room for the host's own data, a stack per core
// and the engine's queues.
const MaxExtSize = 256 << 20
