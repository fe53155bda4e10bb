package emesh

import (
	"fmt"
	"math"
	"strconv"
	"sync"
	"time"
)

// Host code cannot be counted in Epiphany instructions: the kernels are
// compiled for the host CPU. The predictor therefore measures each core's
// compute (its thread's CPU time between syncs) and multiplies it by a
// slowdown: how many times longer the same work takes on one 600 MHz
// Epiphany core. The slowdown comes from a calibration loop whose
// Epiphany cycle count is stated below, or from EBSP_PREDICT_SLOWDOWN.

// SlowdownEnv names the environment variable that sets the slowdown (a
// number >= 0) instead of the calibration; 0 leaves the compute out, so
// the prediction is the communication and synchronisation alone.
const SlowdownEnv = "EBSP_PREDICT_SLOWDOWN"

// CalibElems is the calibration loop's length: two float32 vectors of 1024
// elements (8 KiB, they fit a core's 32 KiB local memory).
const CalibElems = 1024

// CalibCyclesPerElem is what one element of the calibration dot product
// costs an Epiphany core. Assumption, not a measurement: the core issues
// one load per cycle and an FPU instruction (the FMADD) alongside it
// (dual issue), so two 32-bit loads bound an element at 2 cycles with the
// loop unrolled.
const CalibCyclesPerElem = 2.0

var calib struct {
	once     sync.Once
	slowdown float64
}

// calibDot is the calibration loop: four partial sums, so neither machine
// is bound by the latency of one dependent chain of additions.
//
//go:noinline
func calibDot(a, b []float32) float32 {
	var s0, s1, s2, s3 float32
	for i := 0; i+3 < len(a) && i+3 < len(b); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	return s0 + s1 + s2 + s3
}

// CalibratedSlowdown times the calibration loop on this host (once per
// process, about a millisecond; the fastest of many rounds, so a round
// that lost its CPU does not count) and returns the Epiphany's time for
// it over the host's.
func CalibratedSlowdown() float64 {
	calib.once.Do(func() {
		a := make([]float32, CalibElems)
		b := make([]float32, CalibElems)
		for i := range a {
			a[i], b[i] = float32(i%7), float32(i%5)
		}
		const inner = 16
		best := time.Duration(1 << 62)
		var sink float32
		for range 64 {
			t0 := time.Now()
			for range inner {
				sink += calibDot(a, b)
			}
			best = min(best, time.Since(t0))
		}
		hostNs := float64(best.Nanoseconds()) / inner / CalibElems
		boardNs := CalibCyclesPerElem / ClockHz * 1e9
		calib.slowdown = boardNs / max(hostNs, 0.01)
		if sink < 0 { // keeps the loop from being optimised away
			calib.slowdown++
		}
	})
	return calib.slowdown
}

// ParseSlowdown returns the value of EBSP_PREDICT_SLOWDOWN, v, if set,
// else the calibration; source says which.
func ParseSlowdown(v string) (slowdown float64, source string, err error) {
	if v != "" {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || !(f >= 0) || math.IsInf(f, 0) {
			return CalibratedSlowdown(), "calibrated", fmt.Errorf("%s=%q: want a number >= 0", SlowdownEnv, v)
		}
		return f, SlowdownEnv, nil
	}
	return CalibratedSlowdown(), "calibrated", nil
}
