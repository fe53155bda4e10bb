// Package lqcd is the LQCD message-passing face (include/lqcd_msg.h, seed
// 004): channels, the grid topology and the reproducible collectives, in
// C (lqcd_face.h says which file holds what), on the scheduler and the
// shim of capi/, and across MPI ranks on the world's messages (shim.h:
// world_send_*, world_receive*, world_gather_cores). It has no Go API:
// capi imports it so that its C code is linked into the library, and
// exports the Go helpers it calls (capi/lqcd.go).
package lqcd

/*
#cgo CFLAGS: -I${SRCDIR}/../../include -std=gnu99 -O2 -Wall -Wextra -Wno-unused-parameter -ftls-model=initial-exec
*/
import "C"
