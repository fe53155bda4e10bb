package main

// The C structs and enums whose memory or values the Go engine reads or
// writes under a Go type of its own, each paired here with its Go twin.
// A difference in size, offset or value fails the build of the library
// (64-bit and 32-bit alike: each is compiled for its own ABI): an index
// [1]int{}[d] is out of range unless the constant d is 0.
//
// Structs Go reaches only through cgo's own types (struct stream_result,
// struct ebsp_core's other fields) need no twin: cgo lays them out from
// the C declaration. The formats of the engine's own that the C path
// writes or reads (request logs, direct logs, records, the message queue)
// and the numbers it shares with it need none either: capi/engine_defs.h
// is generated from their Go definitions (engine/cdefs.go). A new Go type
// laid over C memory, or C over Go memory, that is not the engine's,
// belongs in this file.

/*
#include <stddef.h>
#include "shim.h"
#include "mem.h"

// cgo gives sizeof for types, not offsetof or the size of a field: the C
// compiler works them out into constants here.
enum {
	twin_dma_done   = offsetof(struct dma_slot, done),
	twin_dma_issued = offsetof(struct dma_slot, issued),
	twin_dma_sync   = offsetof(struct dma_slot, sync),

	twin_core_superstep_off  = offsetof(struct ebsp_core, superstep),
	twin_core_superstep_size = sizeof(((struct ebsp_core *)0)->superstep),
	twin_core_tagsize_off    = offsetof(struct ebsp_core, tagsize),
	twin_core_tagsize_size   = sizeof(((struct ebsp_core *)0)->tagsize),
	twin_core_pending_off    = offsetof(struct ebsp_core, sync_pending),
	twin_core_pending_size   = sizeof(((struct ebsp_core *)0)->sync_pending),
	twin_core_queue_off      = offsetof(struct ebsp_core, queue),
	twin_sync_flags_size     = sizeof(ebsp_sync_flags),
	twin_put_flags_size      = sizeof(ebsp_put_flags),
	twin_get_flags_size      = sizeof(ebsp_get_flags)
};
*/
import "C"

import (
	"sync/atomic"
	"unsafe"

	"libebsp/emesh"
	"libebsp/engine"
	"libebsp/env"
)

// enum ebsp_rest (sched/scheduler.h) carries env.RestOf's answer to the scheduler.
var (
	_ = [1]int{}[C.REST_NEVER-env.RestNever]
	_ = [1]int{}[C.REST_AUTO-env.RestAuto]
	_ = [1]int{}[C.REST_ALWAYS-env.RestAlways]
)

// struct dma_slot (capi/mem.h) is emesh.DMASlot, which the engine
// allocates (a cache line each, so the C struct may be shorter: C only
// ever holds a pointer to one slot) and faces/ebsp/mem.c waits on.
var (
	_ = [1]int{}[C.twin_dma_done-unsafe.Offsetof(emesh.DMASlot{}.Done)]
	_ = [1]int{}[C.twin_dma_issued-unsafe.Offsetof(emesh.DMASlot{}.Issued)]
	_ = [1]int{}[C.twin_dma_sync-unsafe.Offsetof(emesh.DMASlot{}.Sync)]
	_ = [1]int{}[unsafe.Sizeof(atomic.Uint32{})-C.sizeof_uint]
	_ = [1]int{}[unsafe.Sizeof(emesh.DMASlot{}.Sync)-C.sizeof_uint]
	// C's struct fits in Go's.
	_ = [1]int{}[(unsafe.Sizeof(emesh.DMASlot{})-C.sizeof_struct_dma_slot)>>16]
)

// The message queue in a core's C table (struct ebsp_msgq, generated from
// engine.QueueState) lies where Go may read it as such.
var _ = [1]int{}[C.twin_core_queue_off%unsafe.Alignof(engine.QueueState{})]

// struct ebsp_core's superstep, tagsize and sync_pending (capi/shim.h) are
// the engine's own state, which engine.Core updates in place through the
// pointers of a engine.Mirror (shareCore), and ebsp_sync_flags,
// ebsp_put_flags and ebsp_get_flags are the engine's sync and direct flags
// (engine.Machine.ShareSyncFlags), so that the C fast
// paths read them without a call.
var (
	_ = [1]int{}[C.twin_core_superstep_size-unsafe.Sizeof(atomic.Int32{})]
	_ = [1]int{}[C.twin_core_superstep_off%unsafe.Alignof(atomic.Int32{})]
	_ = [1]int{}[C.twin_core_tagsize_size-unsafe.Sizeof(int32(0))]
	_ = [1]int{}[C.twin_core_tagsize_off%unsafe.Alignof(int32(0))]
	_ = [1]int{}[C.twin_core_pending_size-unsafe.Sizeof(atomic.Int32{})]
	_ = [1]int{}[C.twin_core_pending_off%unsafe.Alignof(atomic.Int32{})]
	_ = [1]int{}[C.twin_sync_flags_size-unsafe.Sizeof([2]atomic.Int32{})]
	_ = [1]int{}[C.twin_put_flags_size-unsafe.Sizeof([2]atomic.Int32{})]
	_ = [1]int{}[C.twin_get_flags_size-unsafe.Sizeof([2]atomic.Int32{})]
)

// EPIPHANY_CLOCK_MHZ (capi/shim.h), the cycles ebsp_raw_time counts in C, is
// the clock of the cost model (emesh.ClockHz): one clock.
var _ = [1]int{}[C.EPIPHANY_CLOCK_MHZ*1_000_000-emesh.ClockHz]

// enum ebsp_where (sched/scheduler.h), what sched_where returns, is read as
// engine.Where.
var (
	_ = [1]int{}[C.WHERE_IDLE-engine.WhereIdle]
	_ = [1]int{}[C.WHERE_RUNNING-engine.WhereRunning]
	_ = [1]int{}[C.WHERE_SYNC-engine.WhereSync]
	_ = [1]int{}[C.WHERE_BARRIER-engine.WhereBarrier]
	_ = [1]int{}[C.WHERE_HOST_SYNC-engine.WhereHostSync]
	_ = [1]int{}[C.WHERE_END-engine.WhereEnd]
	_ = [1]int{}[C.WHERE_FINISHED-engine.WhereFinished]
	_ = [1]int{}[C.WHERE_LQCD-engine.WhereLqcd]
	_ = [1]int{}[C.WHERE_LQCD_WAIT-engine.WhereLqcdWait]
)
