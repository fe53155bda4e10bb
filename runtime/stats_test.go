package runtime

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
	require.Len(t, sum.Steps, 4, "three syncs and the final superstep")
	s1 := sum.Steps[1]
	assert.Equal(t, 32+8, s1.SentMax, "core 0: two puts and a message")
	assert.Equal(t, 32+3*8, s1.SentTotal)
	assert.Equal(t, 3*8, s1.RecvMax, "core 0 receives the three messages")
	assert.Equal(t, 32+3*8, s1.RecvTotal)
	assert.Equal(t, 3, s1.Msgs)
	assert.Equal(t, 8, sum.Steps[2].RecvMax)
	assert.Equal(t, 24, sum.Steps[2].RecvTotal)
	assert.Zero(t, sum.Steps[0].SentTotal)

	table := sum.Table()
	assert.Equal(t, 2+4, strings.Count(table, "\n"), table)
	var back RunSummary
	require.NoError(t, json.Unmarshal(sum.JSON(), &back))
	assert.Equal(t, sum.Steps[1].SentTotal, back.Steps[1].SentTotal)
}

func TestStatsOffRecordsNothing(t *testing.T) {
	m := newTestMachine(t, 2)
	runAgain(t, m, func(k kcore) { k.Sync() })
	assert.Empty(t, m.Summary().Steps)
}
