package emesh

import "syscall"

// lowMapFlag asks the kernel for an address below 2 GiB: the emulated
// memories then hold addresses that survive a cast to a 32-bit int or
// unsigned and back, as on the board, whose host and cores are 32-bit
// (Parallella code often keeps a buffer's address in an unsigned).
const lowMapFlag = syscall.MAP_32BIT
