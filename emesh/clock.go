package emesh

// ClockHz is the Epiphany core clock: ebsp_raw_time counts these cycles.
const ClockHz = 600_000_000

// CyclesToNanos converts core cycles to nanoseconds, rounding up.
func CyclesToNanos(cycles uint64) uint64 {
	const perUs = ClockHz / 1_000_000
	return (cycles*1000 + perUs - 1) / perUs
}
