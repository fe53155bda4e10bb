// Package lqcd is the LQCD message-passing face (include/lqcd_msg.h, seed
// 004): channels, the grid topology and the reproducible collectives, in
// C (lqcd_face.h says which file holds what), on the scheduler and what
// capi gives the faces (capi/faces.h), and across MPI ranks on the
// world's messages (world_send_*, world_receive*, world_gather_cores).
// Its Go half (report.go, with grid/: the placement itself) places the
// grid on the mesh and makes the report of a deadlock; capi imports it so that its C code is linked into
// the library, and carries the C calls to it (capi/lqcd.go's exports).
package lqcd

/*
#cgo CFLAGS: -I${SRCDIR}/../../include -std=gnu99 -O2 -Wall -Wextra -Wno-unused-parameter -ftls-model=initial-exec
*/
import "C"
