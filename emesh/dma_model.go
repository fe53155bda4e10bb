package emesh

// The cost model of the Epiphany DMA engine: how long a transfer of n bytes
// takes on the chip. This is the one place its parameters live; the engine
// (dma.go) never completes a transfer before the time computed here.
//
// A transfer costs
//
//	cycles(n) = StartupCycles + n * (cycles of 8 KiB on its route - StartupCycles) / 8192
//
// at 600 MHz (ClockHz). The per-route figures are the Parallella
// measurements quoted in EBSP's documentation (memory_details.rst, "Memory
// speed", 8 KiB transfers by one core's DMA engine):
//
//	core -> other core's memory   1949.88 MB/s    2404 cycles
//	core <- other core's memory    480.82 MB/s    9749 cycles
//	core -> external memory        493.21 MB/s    9504 cycles
//	core <- external memory        154.52 MB/s   30336 cycles
//
// (MB there is 2^20 bytes: 8192 B / 2404 cycles * 600 MHz = 1949.9 MiB/s.)
//
// What the model leaves out, on purpose: the mesh hop latency (1.5 cycles a
// hop, at most 9 cycles on a 4x4 chip, far below the start-up cost), and
// contention: each core's engine is timed alone, although on the board 16
// engines reading external memory at once share one eLink. The start-up
// cost is an estimate, not a measurement: EBSP's ebsp_dma_push (descriptor
// set-up, chaining, kick-start) plus the engine's descriptor fetch.

// Route is the kind of path a transfer takes, which decides its rate.
type Route int

const (
	RouteCoreWrite Route = iota // own memory -> another core's memory (or own -> own)
	RouteCoreRead               // another core's memory -> own memory
	RouteExtWrite               // core memory -> external memory
	RouteExtRead                // external memory -> anywhere
	routes
)

func (r Route) String() string {
	return [...]string{"core write", "core read", "external write", "external read"}[r]
}

// DMAModel holds the parameters of the cost model. The zero value costs
// nothing: transfers complete as soon as they are waited for (tests and
// fuzzers that do not care for timing use it).
type DMAModel struct {
	StartupCycles uint64         // before the first byte moves
	Cycles8K      [routes]uint64 // cycles one 8 KiB transfer takes, by route, start-up included
}

// BoardDMA is the model of the Parallella's Epiphany-III (see above).
var BoardDMA = DMAModel{
	StartupCycles: 100,
	Cycles8K: [routes]uint64{
		RouteCoreWrite: 2404,
		RouteCoreRead:  9749,
		RouteExtWrite:  9504,
		RouteExtRead:   30336,
	},
}

// Cycles is the number of 600 MHz cycles a transfer of n bytes takes on r.
func (m DMAModel) Cycles(n int, r Route) uint64 {
	if n <= 0 {
		return 0
	}
	per8K := m.Cycles8K[r]
	if per8K < m.StartupCycles {
		per8K = m.StartupCycles
	}
	body := per8K - m.StartupCycles
	return m.StartupCycles + (uint64(n)*body+8191)/8192
}

// Nanos is the same cost in nanoseconds.
func (m DMAModel) Nanos(n int, r Route) int64 {
	return int64(CyclesToNanos(m.Cycles(n, r)))
}
