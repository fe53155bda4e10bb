package engine

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"libebsp/emesh"
)

// Superstep statistics (EBSP_STATS): what a BSP programmer tunes by, the
// cost of each superstep T = w + g·h + l. Every core appends one record
// per superstep to its own slice (no locking); FinishRun aggregates them.
// Off by default: then the only cost is a predictable branch per sync and
// per packed request.

// StatsEnv names the environment variable that turns statistics on: "1"
// prints a table after each run, a file name ending in .json writes the
// runs to that file instead.
const StatsEnv = "EBSP_STATS"

// coreStep is one core's view of one superstep.
type coreStep struct {
	arrive, leave time.Duration // since the run started: reaching bsp_sync, leaving it
	sent, recv    int           // payload bytes: put and sent by this core; put, sent and got into it
	msgs          int           // bsp_send messages this core sent
	cpu           int64         // ns of its thread's CPU time from leaving the last sync (or bsp_begin) to reaching this one
	traffic       emesh.Traffic // what the predicted board time charges
	wire          [2]int64      // the transport's messages and bytes to other processes until it left (TrafficCounter)
	wired         bool          // the transport counts them
}

// TrafficCounter is implemented by a transport that sends messages to
// other processes: what this process sent so far, for EBSP_STATS.
type TrafficCounter interface {
	Traffic() (msgs, bytes int64)
}

// stepCounters accumulate the current superstep of a core.
type stepCounters struct {
	sent, recv, msgs int
	traffic          emesh.Traffic
	cpuMark          int64 // the thread's CPU time when the superstep began; 0: at thread start
	cpuNot           int64 // ns of it spent in the emulator's request parsing (notCompute)
}

type runStats struct {
	on       bool
	slowdown string // EBSP_PREDICT_SLOWDOWN (SetPredictSlowdown)
	start    time.Time
	cores    [][]coreStep // by pid
}

// SetStats turns statistics on or off for the next runs.
func (m *Machine) SetStats(on bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.stats.on = on
}

// StatsOn reports whether statistics are being collected.
func (m *Machine) StatsOn() bool { return m.stats.on }

func (m *Machine) startStats() {
	if !m.stats.on {
		return
	}
	m.stats.start = time.Now()
	m.stats.cores = make([][]coreStep, len(m.cores))
	for _, c := range m.cores {
		for i := range c.received {
			c.received[i].take() // sent to it in the last superstep of a run before, never delivered
		}
	}
}

// The count functions are called on the hot paths only when stats are on.

// countSent counts n bsp_puts (msg false) or bsp_sends of nbytes in all
// to core dst.
func (c *Core) countSent(dst, n, nbytes int, msg bool) {
	c.step.sent += nbytes
	t := &c.step.traffic
	// Both take EBSP's one payload mutex, which lives on core 0.
	toMutex := n * c.m.mesh.Hops(c.pid, 0)
	if msg {
		c.step.msgs += n
		t.Sends += n
		t.SendBytes += nbytes
		t.SendHops += toMutex
		return
	}
	t.Puts += n
	t.PutBytes += nbytes
	t.PutHops += n * c.m.mesh.Hops(c.pid, dst)
	t.PutMutexHops += toMutex
}

// countRecv counts n puts or (msg) messages of nbytes in all into this
// core, in the sync.
func (c *Core) countRecv(n, nbytes int, msg bool) {
	c.step.recv += nbytes
	if msg {
		c.step.traffic.Recvs += n
		c.step.traffic.RecvBytes += nbytes
	}
}

// countGot counts n bsp_gets of nbytes in all from core src.
func (c *Core) countGot(src, n, nbytes int) {
	c.step.recv += nbytes
	t := &c.step.traffic
	t.Gets += n
	t.GetBytes += nbytes
	t.GetHops += n * c.m.mesh.Hops(c.pid, src)
}

// DirectTally is what a core's direct requests (direct.go) to or from one
// other core in a superstep amount to; the shim counts them when
// statistics are on (DirectDRMA.Tally).
type DirectTally struct {
	Puts, PutBytes, Gets, GetBytes, Sends, SendBytes int
}

// directReceived is what cores of this process put and sent into a core
// by direct requests in a superstep: their senders count them, the core
// takes them into its own statistics when it leaves that sync.
type directReceived struct {
	putBytes, msgs, msgBytes atomic.Int64
}

func (r *directReceived) take() (putBytes, msgs, msgBytes int) {
	return int(r.putBytes.Swap(0)), int(r.msgs.Swap(0)), int(r.msgBytes.Swap(0))
}

// countDirect counts this core's direct requests of the superstep, at its
// sync: its own now, what it put and sent into other cores of this
// process into their received counts (which they take when they leave the
// sync: after this core arrived). A request to another process is counted
// by its receiver, which applies it as any other.
func (c *Core) countDirect() {
	d := c.m.comm.direct
	if d == nil {
		return
	}
	parity := c.Superstep() % 2
	d.Tally(c.pid, func(peer int, t DirectTally) {
		if t.Puts > 0 {
			c.countSent(peer, t.Puts, t.PutBytes, false)
		}
		if t.Sends > 0 {
			c.countSent(peer, t.Sends, t.SendBytes, true)
		}
		if t.Gets > 0 {
			c.countGot(peer, t.Gets, t.GetBytes)
		}
		if c.local(peer) && t.Puts+t.Sends > 0 {
			in := &c.m.cores[peer].received[parity]
			in.putBytes.Add(int64(t.PutBytes))
			in.msgs.Add(int64(t.Sends))
			in.msgBytes.Add(int64(t.SendBytes))
		}
	})
}

// countReceived takes what cores of this process put and sent into this
// core by direct requests in the superstep whose sync it just completed
// (its counter not advanced yet).
// The parity keeps them apart from the next superstep's, which a fast
// sender may count before this core leaves.
func (c *Core) countReceived() {
	putBytes, msgs, msgBytes := c.received[c.Superstep()%2].take()
	c.countRecv(0, putBytes, false)
	c.countRecv(msgs, msgBytes, true)
}

// statsBegin marks the start of the core's first superstep (bsp_begin),
// on the core's own thread.
func (c *Core) statsBegin() {
	if c.m.stats.on {
		c.step.cpuMark = emesh.ThreadCPU()
	}
}

// threadCPU is the calling thread's CPU time (ns).
func threadCPU() int64 { return emesh.ThreadCPU() }

// notCompute takes the CPU time since from out of the superstep's
// compute: the emulator's parsing of the kernel's request log, which the
// board does not do (its requests are written as they are made, and
// charged by the model).
func (c *Core) notCompute(from int64) {
	c.step.cpuNot += max(emesh.ThreadCPU()-from, 0)
}

// stepArrived and stepLeft bracket a core's bsp_sync (or its bsp_end).
func (c *Core) stepArrived() {
	c.countDirect()
	st := &c.m.stats
	cpu := max(emesh.ThreadCPU()-c.step.cpuMark-c.step.cpuNot, 0)
	st.cores[c.pid] = append(st.cores[c.pid], coreStep{arrive: time.Since(st.start), cpu: cpu})
}

func (c *Core) stepLeft() {
	rec := c.m.stats.cores[c.pid]
	last := &rec[len(rec)-1]
	last.leave = time.Since(c.m.stats.start)
	last.sent, last.recv, last.msgs = c.step.sent, c.step.recv, c.step.msgs
	last.traffic = c.step.traffic
	if t, ok := c.m.comm.transport.(TrafficCounter); ok {
		last.wire[0], last.wire[1] = t.Traffic()
		last.wired = true
	}
	c.step = stepCounters{cpuMark: emesh.ThreadCPU()}
}

// StepSummary is one superstep over all cores.
type StepSummary struct {
	Step      int     `json:"step"`
	WallUs    float64 `json:"wall_us"`    // from the previous superstep's end to this one's
	SentMax   int     `json:"h_sent_max"` // bytes: the largest a core sent
	SentTotal int     `json:"sent_total"` // bytes sent by all cores
	RecvMax   int     `json:"h_recv_max"` // bytes: the largest a core received
	RecvTotal int     `json:"recv_total"` // bytes received by all cores
	Msgs      int     `json:"messages"`   // bsp_send messages
	LastIn    int     `json:"last_in"`    // the core the others waited for
	// Under mpirun: what this process sent to the others for the
	// superstep (MPI messages, their bytes: headers and blocks).
	WireMsgs  int64   `json:"mpi_messages,omitempty"`
	WireBytes int64   `json:"mpi_bytes,omitempty"`
	WaitMaxUs float64 `json:"wait_max_us"` // the longest a core waited in the sync
	WaitCore  int     `json:"wait_core"`   // that core

	// The predicted time on the Epiphany-III (emesh/epiphany3.go,
	// docs/cost-model.md): BoardUs = max over cores of (compute + comm)
	// + sync. CommUs and SyncUs do not depend on the slowdown.
	CPUMaxUs  float64 `json:"cpu_max_us"`       // host CPU time of the busiest core between syncs
	ComputeUs float64 `json:"board_compute_us"` // that, times the slowdown: w
	CommUs    float64 `json:"board_comm_us"`    // the largest core's communication cost on the board
	SyncUs    float64 `json:"board_sync_us"`    // l: bsp_sync's barriers (bsp_end's one for the last superstep)
	BoardUs   float64 `json:"board_us"`         // the superstep's predicted board time
}

// RunSummary is the statistics of one run.
type RunSummary struct {
	Run   int           `json:"run"`
	Cores int           `json:"cores"`
	Wired bool          `json:"mpi,omitempty"` // the run spans processes: the steps count MPI traffic
	Steps []StepSummary `json:"supersteps"`
	Board BoardSummary  `json:"board"`
}

// BoardSummary is the run's predicted time on the Epiphany-III.
type BoardSummary struct {
	Model          string  `json:"model"`
	Slowdown       float64 `json:"slowdown"`        // board compute time per host CPU time
	SlowdownSource string  `json:"slowdown_source"` // "calibrated" or EBSP_PREDICT_SLOWDOWN
	ComputeUs      float64 `json:"compute_us"`      // summed over supersteps, as the others
	CommUs         float64 `json:"comm_us"`
	SyncUs         float64 `json:"sync_us"`
	CommSyncUs     float64 `json:"comm_sync_us"` // what the prediction is without the compute (slowdown-free)
	TotalUs        float64 `json:"total_us"`
}

// Summary aggregates the run's records by superstep; the last superstep
// ends at bsp_end. Only meaningful after the run, when stats are on.
func (m *Machine) Summary() RunSummary {
	sum := RunSummary{Run: m.runs, Cores: len(m.cores)}
	steps := 0
	for _, rec := range m.stats.cores {
		steps = max(steps, len(rec))
	}
	var prevEnd time.Duration
	var prevWire [2]int64
	for s := range steps {
		st := StepSummary{Step: s, LastIn: -1, WaitCore: -1}
		var end, lastArrive, waitMax time.Duration
		var wire [2]int64
		for pid, rec := range m.stats.cores {
			if s >= len(rec) {
				continue
			}
			r := rec[s]
			if r.wired {
				sum.Wired = true
				wire[0], wire[1] = max(wire[0], r.wire[0]), max(wire[1], r.wire[1])
			}
			st.SentMax = max(st.SentMax, r.sent)
			st.RecvMax = max(st.RecvMax, r.recv)
			st.SentTotal += r.sent
			st.RecvTotal += r.recv
			st.Msgs += r.msgs
			end = max(end, r.leave)
			if st.LastIn < 0 || r.arrive > lastArrive {
				st.LastIn, lastArrive = pid, r.arrive
			}
			if w := r.leave - r.arrive; st.WaitCore < 0 || w > waitMax {
				st.WaitCore, waitMax = pid, w
			}
		}
		st.WallUs = us(end - prevEnd)
		st.WaitMaxUs = us(waitMax)
		prevEnd = end
		if sum.Wired {
			st.WireMsgs, st.WireBytes = wire[0]-prevWire[0], wire[1]-prevWire[1]
			prevWire = wire
		}
		sum.Steps = append(sum.Steps, st)
	}
	m.predict(&sum)
	return sum
}

// SetPredictSlowdown sets EBSP_PREDICT_SLOWDOWN for the next runs: the
// host-to-Epiphany compute factor of the predicted board time ("" for the
// calibrated one).
func (m *Machine) SetPredictSlowdown(v string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.stats.slowdown = v
}

// predict fills in the predicted board time of every superstep: each
// core's compute (host CPU time times the slowdown) plus its
// communication, the slowest core's, plus the sync. A message sent in
// superstep s is read (bsp_move) in s+1, so its receiving costs there,
// with a scan of every message queued in s (EBSP's queue is shared).
func (m *Machine) predict(sum *RunSummary) {
	board := emesh.Epiphany3
	slowdown, source, err := emesh.ParseSlowdown(m.stats.slowdown)
	if err != nil {
		source += " (" + err.Error() + ")"
	}
	b := &sum.Board
	b.Model = fmt.Sprintf("Epiphany-III at %.0f MHz, %d cores", board.ClockHz/1e6, sum.Cores)
	b.Slowdown, b.SlowdownSource = slowdown, source
	for s := range sum.Steps {
		st := &sum.Steps[s]
		queued := 0
		if s > 0 {
			queued = sum.Steps[s-1].Msgs
		}
		var worst, comm, cpu float64
		for _, rec := range m.stats.cores {
			if s >= len(rec) {
				continue
			}
			t := rec[s].traffic
			t.Recvs, t.RecvBytes = 0, 0
			if s > 0 {
				t.Recvs, t.RecvBytes = rec[s-1].traffic.Recvs, rec[s-1].traffic.RecvBytes
			}
			scan := queued
			if t.Recvs == 0 {
				scan = 0 // a core that receives nothing need not look
			}
			c := board.Micros(board.CommCycles(t, scan))
			w := float64(rec[s].cpu) / 1e3 * slowdown
			comm, cpu = max(comm, c), max(cpu, float64(rec[s].cpu)/1e3)
			worst = max(worst, c+w)
		}
		st.CPUMaxUs = cpu
		st.ComputeUs = cpu * slowdown
		st.CommUs = comm
		if s == len(sum.Steps)-1 {
			st.SyncUs = board.Micros(board.EndCycles(sum.Cores))
		} else {
			st.SyncUs = board.Micros(board.SyncCycles(sum.Cores))
		}
		st.BoardUs = worst + st.SyncUs
		b.ComputeUs += st.ComputeUs
		b.CommUs += st.CommUs
		b.SyncUs += st.SyncUs
		b.TotalUs += st.BoardUs
	}
	b.CommSyncUs = b.CommUs + b.SyncUs
}

func us(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }

// Table formats a run's statistics for people.
func (s RunSummary) Table() string {
	var b strings.Builder
	total := 0.0
	for _, st := range s.Steps {
		total += st.WallUs
	}
	fmt.Fprintf(&b, "ebsp stats: run %d, %d cores, %d supersteps, %.1f us\n", s.Run, s.Cores, len(s.Steps), total)
	fmt.Fprintf(&b, "ebsp stats: %5s %10s %10s %10s %10s %10s %7s %7s %11s %9s %10s %10s %10s\n",
		"step", "wall_us", "h_sent", "sent", "h_recv", "recv", "msgs", "last_in", "wait_max_us", "wait_core",
		"cpu_us", "b_comm_us", "board_us")
	for _, st := range s.Steps {
		fmt.Fprintf(&b, "ebsp stats: %5d %10.1f %10d %10d %10d %10d %7d %7s %11.1f %9s %10.1f %10.2f %10.2f\n",
			st.Step, st.WallUs, st.SentMax, st.SentTotal, st.RecvMax, st.RecvTotal, st.Msgs,
			fmt.Sprintf("%02d", st.LastIn), st.WaitMaxUs, fmt.Sprintf("%02d", st.WaitCore),
			st.CPUMaxUs, st.CommUs, st.BoardUs)
	}
	if s.Wired {
		fmt.Fprintf(&b, "ebsp stats: sent by this process to the others (MPI messages and bytes: headers and blocks), by superstep:\n")
		for _, st := range s.Steps {
			fmt.Fprintf(&b, "ebsp stats: %5d %10d msgs %12d bytes\n", st.Step, st.WireMsgs, st.WireBytes)
		}
	}
	p := s.Board
	// The total is less than the sum of its parts when the core that
	// computes longest is not the one that communicates most.
	fmt.Fprintf(&b, "ebsp stats: predicted board time (%s): %.2f us; summed over supersteps, the slowest core's compute %.2f us (host CPU x %.3g, %s), communication %.2f us, sync %.2f us\n",
		p.Model, p.TotalUs, p.ComputeUs, p.Slowdown, p.SlowdownSource, p.CommUs, p.SyncUs)
	return b.String()
}

// JSON is the run's statistics as one JSON object.
func (s RunSummary) JSON() []byte {
	b, _ := json.Marshal(s) // plain structs: cannot fail
	return b
}

// TraceEnv names the environment variable that writes a Chrome Trace Event
// file (Perfetto, chrome://tracing) of every run: one track per core.
const TraceEnv = "EBSP_TRACE"

// traceEvent is one Chrome Trace Event.
type traceEvent struct {
	Name string         `json:"name"`
	Ph   string         `json:"ph"`
	Ts   float64        `json:"ts"`
	Dur  float64        `json:"dur,omitempty"`
	S    string         `json:"s,omitempty"` // an instant event's scope`
	Pid  int            `json:"pid"`
	Tid  int            `json:"tid"`
	Args map[string]any `json:"args,omitempty"`
}

// TraceEvents turns the run's records into trace events: per core, a
// "compute" span from leaving one sync to reaching the next and a
// "bsp_sync" span for the wait (the last superstep ends in "bsp_end"), and
// a counter of the bytes exchanged per superstep. The run is the trace's
// process, at offset (µs) on the trace's clock.
func (m *Machine) TraceEvents(offset float64) []any {
	run := m.runs
	name := fmt.Sprintf(m.face.RunName, run)
	ev := []any{traceEvent{Name: "process_name", Ph: "M", Pid: run, Args: map[string]any{"name": name}}}
	for pid, rec := range m.stats.cores {
		ev = append(ev, traceEvent{Name: "thread_name", Ph: "M", Pid: run, Tid: pid, Args: map[string]any{"name": fmt.Sprintf("core %02d", pid)}})
		var from time.Duration
		for s, r := range rec {
			args := map[string]any{"superstep": s, "sent": r.sent, "recv": r.recv, "messages": r.msgs}
			ev = append(ev, traceEvent{Name: "compute", Ph: "X", Ts: offset + us(from), Dur: us(r.arrive - from), Pid: run, Tid: pid, Args: args})
			name := "bsp_sync"
			if s == len(rec)-1 {
				name = "bsp_end"
			}
			ev = append(ev, traceEvent{Name: name, Ph: "X", Ts: offset + us(r.arrive), Dur: us(r.leave - r.arrive), Pid: run, Tid: pid, Args: args})
			from = r.leave
		}
	}
	var prevEnd float64
	for _, st := range m.Summary().Steps {
		prevEnd += st.WallUs
		ev = append(ev, traceEvent{Name: "bytes exchanged", Ph: "C", Ts: offset + prevEnd, Pid: run,
			Args: map[string]any{"sent": st.SentTotal, "h_relation": max(st.SentMax, st.RecvMax)}})
		// An instant event, not a counter: the counter track is bytes, and
		// a process-wide mark shows the figures without a second track.
		ev = append(ev, traceEvent{Name: "predicted board time", Ph: "i", S: "p", Ts: offset + prevEnd, Pid: run,
			Args: map[string]any{"superstep": st.Step, "board_us": st.BoardUs, "compute_us": st.ComputeUs,
				"comm_us": st.CommUs, "sync_us": st.SyncUs}})
	}
	return ev
}

// RunStartedAt is when the last run started (statistics on).
func (m *Machine) RunStartedAt() time.Time { return m.stats.start }
