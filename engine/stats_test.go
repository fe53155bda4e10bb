package engine

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"libebsp/emesh"
)

func TestStatsCountEverySuperstep(t *testing.T) {
	m := newTestMachine(t, 3)
	m.SetStats(true)
	mem := perCore(3)
	runAgain(t, m, func(k kcore) {
		me := mem[k.Pid()]
		k.must(k.PushReg(ptr(&me.arr), 32))
		k.Sync() // superstep 0: a registration only
		v := [2]int64{1, 2}
		if k.Pid() == 0 { // core 0 puts 16 bytes into each of the others
			k.must(k.Put(1, ptr(&v), ptr(&me.arr), 0, 16))
			k.must(k.Put(2, ptr(&v), ptr(&me.arr), 0, 16))
		}
		k.must(k.Send(0, nil, ptr(&v), 8)) // every core sends core 0 one 8-byte message
		k.Sync()                           // superstep 1
		k.must(k.Get((k.Pid()+1)%3, ptr(&me.arr), 0, ptr(&v), 8))
		k.Sync() // superstep 2: 8 bytes got by every core
	})
	sum := m.Summary()
	assertStatsOfThreeCores(t, sum, 32)

	table := sum.Table()
	assert.Equal(t, 2+4+1, strings.Count(table, "\n"), table)
	assert.Contains(t, table, "predicted board time")
	var back RunSummary
	require.NoError(t, json.Unmarshal(sum.JSON(), &back))
	assert.Equal(t, sum.Steps[1].SentTotal, back.Steps[1].SentTotal)
	assert.Equal(t, sum.Board.TotalUs, back.Board.TotalUs)
	assert.Equal(t, sum.Steps[2].BoardUs, back.Steps[2].BoardUs)
}

// assertStatsOfThreeCores checks the figures of the three cores' program
// of TestStatsCountEverySuperstep: superstep 0 registers, in superstep 1
// core 0 puts putBytes into the others and every core sends it an 8-byte
// message, in superstep 2 every core gets 8 bytes.
func assertStatsOfThreeCores(t *testing.T, sum RunSummary, putBytes int) {
	t.Helper()
	require.Len(t, sum.Steps, 4, "three syncs and the final superstep")
	s1 := sum.Steps[1]
	assert.Equal(t, putBytes+8, s1.SentMax, "core 0: two puts and a message")
	assert.Equal(t, putBytes+3*8, s1.SentTotal)
	assert.Equal(t, 3*8, s1.RecvMax, "core 0 receives the three messages")
	assert.Equal(t, putBytes+3*8, s1.RecvTotal)
	assert.Equal(t, 3, s1.Msgs)
	assert.Equal(t, 8, sum.Steps[2].RecvMax)
	assert.Equal(t, 24, sum.Steps[2].RecvTotal)
	assert.Zero(t, sum.Steps[0].SentTotal)
}

// The communication and sync parts of the prediction follow from the
// counted traffic alone (no timing): superstep 1 costs what core 0's two
// puts and message cost; superstep 2 what core 0's get and reading the
// three messages of superstep 1 cost.
func TestStatsPredictBoardTime(t *testing.T) {
	m := newTestMachine(t, 3)
	m.SetStats(true)
	mem := perCore(3)
	runAgain(t, m, func(k kcore) {
		me := mem[k.Pid()]
		k.must(k.PushReg(ptr(&me.arr), 32))
		k.Sync()
		v := [2]int64{1, 2}
		if k.Pid() == 0 {
			k.must(k.Put(1, ptr(&v), ptr(&me.arr), 0, 16))
			k.must(k.Put(2, ptr(&v), ptr(&me.arr), 0, 16))
		}
		k.must(k.Send(0, nil, ptr(&v), 8))
		k.Sync()
		k.must(k.Get((k.Pid()+1)%3, ptr(&me.arr), 0, ptr(&v), 8))
		k.Sync()
	})
	sum := m.Summary()
	require.Len(t, sum.Steps, 4)
	b, mesh := emesh.Epiphany3, m.Mesh()
	put := emesh.Traffic{Puts: 2, PutBytes: 32, PutHops: mesh.Hops(0, 1) + mesh.Hops(0, 2),
		Sends: 1, SendBytes: 8}
	assert.InDelta(t, b.Micros(b.CommCycles(put, 0)), sum.Steps[1].CommUs, 1e-9)
	got := emesh.Traffic{Gets: 1, GetBytes: 8, GetHops: mesh.Hops(0, 1), Recvs: 3, RecvBytes: 24}
	assert.InDelta(t, b.Micros(b.CommCycles(got, 3)), sum.Steps[2].CommUs, 1e-9)
	assert.Zero(t, sum.Steps[0].CommUs, "a registration costs nothing on the board (EBSP keeps it local)")
	assert.InDelta(t, b.Micros(b.SyncCycles(3)), sum.Steps[0].SyncUs, 1e-9)
	assert.InDelta(t, b.Micros(b.EndCycles(3)), sum.Steps[3].SyncUs, 1e-9)
	for _, st := range sum.Steps {
		assert.GreaterOrEqual(t, st.BoardUs, st.CommUs+st.SyncUs, "step %d", st.Step)
		assert.GreaterOrEqual(t, st.ComputeUs, 0.0)
	}
	assert.InDelta(t, sum.Board.CommUs+sum.Board.SyncUs, sum.Board.CommSyncUs, 1e-9)
	assert.Positive(t, sum.Board.Slowdown)
}

func TestStatsSlowdownIsSet(t *testing.T) {
	m := newTestMachine(t, 2)
	m.SetStats(true)
	m.SetPredictSlowdown("4")
	runAgain(t, m, func(k kcore) { k.Sync() })
	sum := m.Summary()
	assert.Equal(t, 4.0, sum.Board.Slowdown)
	assert.Equal(t, emesh.SlowdownEnv, sum.Board.SlowdownSource)
	for _, st := range sum.Steps {
		assert.InDelta(t, 4*st.CPUMaxUs, st.ComputeUs, 1e-9)
	}
}

func TestStatsOffRecordsNothing(t *testing.T) {
	m := newTestMachine(t, 2)
	runAgain(t, m, func(k kcore) { k.Sync() })
	assert.Empty(t, m.Summary().Steps)
}
