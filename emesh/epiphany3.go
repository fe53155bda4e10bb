package emesh

// The predicted-time model of the Parallella's 16-core Epiphany-III
// (E16G301): what a BSP program would take on the board, from what the
// emulator counts per core and superstep. Every parameter lives here, each
// with its source; "assumption" marks what no document in
// /work/shared/reference publishes. docs/cost-model.md states the model,
// its validation against the published figures and its limits.
//
// Why memcpy rates and not DMA rates: EBSP 1.0 moves every bsp_put,
// bsp_get and bsp_send payload with ebsp_memcpy, a core's load/store loop
// (ebsp-1.0/src/e_bsp_drma.c bsp_put and bsp_sync in e_bsp.c,
// e_bsp_mp.c bsp_send), never with the DMA engine. So the "Using memcpy"
// rows of the published table price them; the DMA rows (BoardDMA in
// dma_model.go) price only ebsp_dma_push and streams.
//
// Published figures (ebsp-docs/memory_details.rst, "Memory speed", lines
// 150-154; one core, 8 KiB, MB there is 2^20 bytes):
//
//	Core -> SRAM (other core) write  504.09 MB/s    9299 clocks
//	Core <- SRAM (other core) read   115.65 MB/s   40531 clocks
//	Core -> ERAM write               142.99 MB/s   32782 clocks
//	Core <- ERAM read                  4.19 MB/s 1119132 clocks

// Board is the parameters of the predicted-time model.
type Board struct {
	// ClockHz: "the default Epiphany clockfrequency is about 600 MHz"
	// (ebsp-docs/other_features.rst line 27; ClockHz in clock.go).
	ClockHz float64

	// HopCycles is the eMesh latency per router hop. Assumption: 1.5
	// clock cycles, the figure quoted in dma_model.go from the Epiphany
	// architecture reference (not in /work/shared/reference); issue 13
	// says 1.5 ns (0.9 cycles). Either way it is at most 9 cycles on a
	// 4x4 chip, against hundreds for any transfer: the prediction moves by
	// well under 1% between the two readings.
	HopCycles float64

	// MemcpyCycles8K is what a core's memcpy of 8 KiB costs, by route, in
	// clock cycles: the published table above (measured at an unknown
	// distance, taken as the average; HopCycles adds the distance).
	MemcpyCycles8K [routes]float64

	// BarrierCycles is one e_barrier of 16 cores that arrive together.
	// Assumption, no published measurement: estimated from the ESDK's
	// flip-flop barrier that EBSP calls (e_bsp.c line 157 and 184): every
	// core writes a flag in core 0 (at most 6 hops), core 0 polls 15 flags
	// and clears 16 (about 5 cycles each), then writes 15 remote flags
	// which the cores poll: about 15*5 + 16*2 + 15*2 + 2*6*1.5 plus loop
	// and call overhead, rounded up to 200 cycles (0.33 us).
	BarrierCycles float64

	// BarriersPerSync: EBSP's bsp_sync calls e_barrier three times: at
	// the top of its loop, which runs twice (gets, then puts), and once at
	// its end (ebsp-1.0/src/e_bsp.c lines 156-184).
	BarriersPerSync int

	// SyncERAMWrites: bsp_sync resets the shared payload buffer and the
	// message queue count in external memory (e_bsp.c lines 175-176):
	// two 4-byte writes.
	SyncERAMWrites int

	// MutexCycles is one uncontended e_mutex_lock/e_mutex_unlock pair on
	// core 0 (bsp_put and bsp_send take the payload mutex, e_bsp_drma.c
	// line 105, e_bsp_mp.c line 46), besides the hops there and back.
	// Assumption: a TESTSET round trip plus the unlock write and call
	// overhead, about 40 cycles. Contention (all cores queue on one
	// mutex) is left out.
	MutexCycles float64

	// RequestBytes is sizeof(ebsp_data_request) (src, dst, nbytes: 12
	// bytes, ebsp-1.0/include/ebsp_common.h lines 60-69), written to
	// external memory by every bsp_put and bsp_get.
	RequestBytes int

	// RequestScanBytes is what bsp_sync reads back of each request from
	// external memory: nbytes in both passes of its loop and src and dst
	// once (e_bsp.c lines 156-168): 4+4+8 bytes.
	RequestScanBytes int

	// MessageHeaderBytes is sizeof(ebsp_message_header) (pid, tag,
	// payload, nbytes: 16 bytes, ebsp_common.h lines 85-90), written by
	// bsp_send and read by the receiver (bsp_get_tag, bsp_move).
	MessageHeaderBytes int

	// MessageScanBytes is what a receiver reads of every message in the
	// one shared queue to find its own: the pid field (e_bsp_mp.c
	// _next_queue_message).
	MessageScanBytes int
}

// Epiphany3 is the Parallella board's model.
var Epiphany3 = Board{
	ClockHz:   ClockHz,
	HopCycles: 1.5,
	MemcpyCycles8K: [routes]float64{
		RouteCoreWrite: 9299,
		RouteCoreRead:  40531,
		RouteExtWrite:  32782,
		RouteExtRead:   1119132,
	},
	BarrierCycles:      200,
	BarriersPerSync:    3,
	SyncERAMWrites:     2,
	MutexCycles:        40,
	RequestBytes:       12,
	RequestScanBytes:   16,
	MessageHeaderBytes: 16,
	MessageScanBytes:   4,
}

// MemcpyCycles is a core's memcpy of n bytes on route r, hops away (the
// remote core's distance; 0 for external memory, whose eLink distance is
// in the published figure). A write is posted, so its hops count once; a
// read waits for its answer, so it counts the hops there and back.
func (b Board) MemcpyCycles(n int, r Route, hops int) float64 {
	if n <= 0 {
		return 0
	}
	c := float64(n) * b.MemcpyCycles8K[r] / 8192
	if r == RouteCoreRead || r == RouteExtRead {
		return c + 2*float64(hops)*b.HopCycles
	}
	return c + float64(hops)*b.HopCycles
}

// MiBps is the model's rate on route r for an 8 KiB memcpy, in the
// units of the published table (2^20 bytes per second).
func (b Board) MiBps(r Route) float64 {
	return 8192 / (b.MemcpyCycles(8192, r, 0) / b.ClockHz) / (1 << 20)
}

// DMAMiBps is the same for one core's DMA engine (BoardDMA).
func DMAMiBps(m DMAModel, r Route) float64 {
	return 8192 / (float64(m.Cycles(8192, r)) / ClockHz) / (1 << 20)
}

// Traffic is what one core did in one superstep that costs board time,
// as the emulator counts it.
type Traffic struct {
	Puts, PutBytes, PutHops    int // bsp_put: calls, payload bytes, hops summed over the calls
	Gets, GetBytes, GetHops    int // bsp_get, the same
	Sends, SendBytes, SendHops int // bsp_send: messages, tag+payload bytes, hops to core 0 (the mutex)
	Recvs, RecvBytes           int // messages delivered to this core: count, tag+payload bytes
	PutMutexHops               int // hops to core 0 summed over the puts (the payload mutex)
}

// CommCycles is the board time the core spends on its communication in
// the superstep, in cycles: at each call (copying put and send payloads
// and requests into external memory), in bsp_sync (the copies of its
// requests) and reading the messages of the superstep before (bsp_move).
// queued is the number of messages in the shared queue the core scans.
func (b Board) CommCycles(t Traffic, queued int) float64 {
	var c float64
	// bsp_put: the mutex, the payload and the request into external
	// memory now; in the sync the payload is read back from external
	// memory and written into the target core.
	c += float64(t.Puts)*b.MutexCycles + 2*float64(t.PutMutexHops)*b.HopCycles
	c += b.MemcpyCycles(t.PutBytes, RouteExtWrite, 0)
	c += b.MemcpyCycles(t.PutBytes, RouteExtRead, 0)
	c += b.MemcpyCycles(t.PutBytes, RouteCoreWrite, 0) + float64(t.PutHops)*b.HopCycles
	// bsp_get: the request now; in the sync the source core's memory is
	// read into the destination.
	c += b.MemcpyCycles(t.GetBytes, RouteCoreRead, 0) + 2*float64(t.GetHops)*b.HopCycles
	reqs := t.Puts + t.Gets
	c += b.MemcpyCycles(reqs*b.RequestBytes, RouteExtWrite, 0)
	c += b.MemcpyCycles(reqs*b.RequestScanBytes, RouteExtRead, 0)
	// bsp_send: the mutex, the header, tag and payload into external memory.
	c += float64(t.Sends)*b.MutexCycles + 2*float64(t.SendHops)*b.HopCycles
	c += b.MemcpyCycles(t.Sends*b.MessageHeaderBytes+t.SendBytes, RouteExtWrite, 0)
	// Receiving: scanning the shared queue, then each own message's
	// header, tag and payload read from external memory.
	c += b.MemcpyCycles(queued*b.MessageScanBytes, RouteExtRead, 0)
	c += b.MemcpyCycles(t.Recvs*b.MessageHeaderBytes+t.RecvBytes, RouteExtRead, 0)
	return c
}

// SyncCycles is the fixed cost l of one bsp_sync when the cores arrive
// together. BarrierCycles is for 16 cores; core 0 polls and sets one flag
// per core, so other core counts scale it (the 64-core Epiphany-IV).
func (b Board) SyncCycles(cores int) float64 {
	return float64(b.BarriersPerSync)*b.barrier(cores) + b.MemcpyCycles(4*b.SyncERAMWrites, RouteExtWrite, 0)
}

// EndCycles is bsp_end's cost: one barrier (ebsp_barrier, e_bsp.c line 116).
func (b Board) EndCycles(cores int) float64 { return b.barrier(cores) }

func (b Board) barrier(cores int) float64 { return b.BarrierCycles * float64(max(cores, 1)) / 16 }

// Micros converts cycles to microseconds.
func (b Board) Micros(cycles float64) float64 { return cycles / b.ClockHz * 1e6 }
