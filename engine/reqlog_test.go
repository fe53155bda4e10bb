package engine

import (
	"fmt"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// logWriter builds a request log the way capi/reqlog.c does, in an arena
// (memory outside the Go heap, like the C log).
type logWriter struct{ a buffer }

func (w *logWriter) add(e logEntry, inline ...[]byte) {
	n := 0
	for _, b := range inline {
		n += len(b)
	}
	size := LogEntrySize + pad8(n)
	if err := w.a.grow(size); err != nil {
		panic(err)
	}
	off := w.a.used
	rec := w.a.take(size)
	*(*logEntry)(w.a.at(off)) = e
	at := LogEntrySize
	for _, b := range inline {
		at += copy(rec[at:], b)
	}
}

func (w *logWriter) put(pid int, src []byte, dst unsafe.Pointer, offset int) {
	w.add(logEntry{kind: LogPut, pid: int32(pid), offset: int32(offset), nbytes: int32(len(src)), variable: dst}, src)
}

func (w *logWriter) get(pid int, src unsafe.Pointer, offset int, dst unsafe.Pointer, nbytes int) {
	w.add(logEntry{kind: LogGet, pid: int32(pid), offset: int32(offset), nbytes: int32(nbytes), variable: src, dst: dst})
}

func (w *logWriter) send(pid int, tag, payload []byte) {
	w.add(logEntry{kind: LogSend, pid: int32(pid), offset: int32(len(tag)), nbytes: int32(len(payload))}, tag, payload)
}

// drain hands the log to c and empties it, as reqlog_drain does.
func (w *logWriter) drain(c *Core) *Error {
	if w.a.used == 0 {
		return nil
	}
	_, err := c.DrainLog(w.a.at(0), w.a.used)
	w.a.reset()
	return err
}

func int64Bytes(v int64) []byte { return unsafe.Slice((*byte)(unsafe.Pointer(&v)), 8) }

// Logged requests act like direct calls: puts by source pid then issue
// order (a direct put after the drained log comes last), gets see the
// values from before the puts, messages keep their order and tags.
func TestDrainedLogActsLikeDirectCalls(t *testing.T) {
	const n = 3
	m := newTestMachine(t, n)
	mem := perCore(n)
	got := make([]int64, n)
	queues := make([][]string, n)
	require.Nil(t, spmd(t, m, func(k kcore) {
		var w logWriter
		defer w.a.free()
		me := mem[k.Pid()]
		me.x = int64(k.Pid())
		k.must(k.PushReg(ptr(&me.x), 8))
		k.must(k.PushReg(ptr(&me.arr), 64))
		tag := 2
		_, err := k.SetTagsize(tag)
		k.must(err)
		k.Sync()
		next := (k.Pid() + 1) % n
		w.get(next, ptr(&me.x), 0, ptr(&got[k.Pid()]), 8)
		for i := range 3 {
			w.put(0, int64Bytes(int64(10*k.Pid()+i)), ptr(&me.x), 0)
			w.put(next, []byte{byte(i)}, ptr(&me.arr), i) // odd sizes keep entries padded
		}
		w.send(next, []byte{byte(k.Pid()), 'T'}, []byte("hello"))
		w.send(next, []byte{byte(k.Pid()), 'U'}, nil)
		k.must(w.drain(k.Core))
		if k.Pid() == n-1 {
			v := int64(99)
			k.must(k.Put(0, ptr(&v), ptr(&me.x), 0, 8))
		}
		k.Sync()
		for {
			tp, pp, size := k.HPMove()
			if size < 0 {
				break
			}
			queues[k.Pid()] = append(queues[k.Pid()], fmt.Sprintf("%q %q", bytesAt(tp, tag), bytesAt(pp, size)))
		}
	}))
	assert.Equal(t, int64(99), mem[0].x, "the direct put issued after the log wins")
	assert.Equal(t, []int64{1, 2, 0}, got, "gets read before the puts")
	for pid := range n {
		assert.Equal(t, [8]int64{0x020100}, mem[pid].arr)
		prev := byte((pid + n - 1) % n)
		assert.Equal(t, []string{fmt.Sprintf("%q %q", []byte{prev, 'T'}, "hello"), fmt.Sprintf("%q \"\"", []byte{prev, 'U'})}, queues[pid])
	}
}

// A misuse in the log is reported like the direct call reports it; the
// entries before it were recorded, the ones after it are not looked at.
func TestDrainedLogReportsMisuseAsDirectCalls(t *testing.T) {
	const want = "01: BSP ERROR: bsp_put: the address is not a registered variable (core 00, 8 bytes at offset 0) (superstep 1)"
	cases := map[string]func(w *logWriter, me *vars){
		"put": func(w *logWriter, me *vars) { w.put(0, int64Bytes(1), ptr(&me.arr), 0) },
		"put after good ones": func(w *logWriter, me *vars) {
			w.put(0, int64Bytes(1), ptr(&me.x), 0)
			w.send(2, nil, []byte("x"))
			w.put(0, int64Bytes(1), ptr(&me.arr), 0)
			w.put(0, int64Bytes(1), nil, -5)
		},
	}
	for name, logged := range cases {
		t.Run(name, func(t *testing.T) {
			got := misuse(t, func(k kcore, me *vars) {
				if k.Pid() == 1 {
					var w logWriter
					defer w.a.free()
					logged(&w, me)
					if !k.ok(w.drain(k.Core)) {
						return
					}
				}
				k.Sync()
			})
			assert.Equal(t, want, got)
		})
	}
}

func TestDrainLogRejectsBrokenLogs(t *testing.T) {
	cases := map[string]struct {
		log  func(w *logWriter)
		want string
	}{
		"unknown kind": {func(w *logWriter) { w.add(logEntry{kind: 9}) },
			"bsp_sync: internal error: request log entry of unknown kind 9"},
		"tag size": {func(w *logWriter) { w.send(0, []byte{1, 2, 3}, nil) },
			"bsp_send: internal error: logged with tag size 3, the tag size is 0"},
		"cut short": {func(w *logWriter) { w.put(0, nil, nil, 0); w.a.used -= 8 },
			fmt.Sprintf("bsp_sync: internal error: request log cut short (0 of %d bytes)", LogEntrySize-8)},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := misuse(t, func(k kcore, me *vars) {
				if k.Pid() == 0 {
					var w logWriter
					defer w.a.free()
					tc.log(&w)
					if !k.ok(w.drain(k.Core)) {
						return
					}
				}
				k.Sync()
			})
			assert.Equal(t, "00: BSP ERROR: "+tc.want+" (superstep 1)", got)
		})
	}
}

func TestTagsizeIsMirrored(t *testing.T) {
	m := newTestMachine(t, 2)
	mirrors := make([]int32, 2)
	for pid := range mirrors {
		mirrors[pid] = -1
		m.Core(pid).Share(Mirror{Superstep: new(atomic.Int32), Tagsize: &mirrors[pid], Pending: new(atomic.Int32)})
	}
	seen := make([][]int32, 2)
	require.Nil(t, spmd(t, m, func(k kcore) {
		seen[k.Pid()] = append(seen[k.Pid()], mirrors[k.Pid()])
		_, err := k.SetTagsize(6)
		k.must(err)
		seen[k.Pid()] = append(seen[k.Pid()], mirrors[k.Pid()])
		k.Sync()
		seen[k.Pid()] = append(seen[k.Pid()], mirrors[k.Pid()])
	}))
	assert.Equal(t, [][]int32{{0, 0, 6}, {0, 0, 6}}, seen, "from the run start, then at the sync")
}

// BenchmarkDrainLogPuts is the engine's share of a logged 8-byte bsp_put.
func BenchmarkDrainLogPuts(b *testing.B) {
	m := newTestMachine(b, 1)
	var words [1024]int64
	require.Nil(b, spmd(b, m, func(k kcore) {
		var w logWriter
		defer w.a.free()
		k.must(k.PushReg(ptr(&words), len(words)*8))
		k.Sync()
		for i := range len(words) {
			w.put(0, int64Bytes(int64(i)), ptr(&words), i*8)
		}
		b.ResetTimer()
		for range b.N / len(words) {
			_, err := k.DrainLog(w.a.at(0), w.a.used)
			k.must(err)
			k.Sync()
		}
	}))
}
