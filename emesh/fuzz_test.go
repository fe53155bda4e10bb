package emesh

// Fuzz target for the first-fit allocator behind ebsp_malloc, ebsp_ext_malloc
// and the stream buffers. Plain `go test ./emesh/` runs only the seeds; to
// fuzz for longer:
//
//	go test ./emesh/ -run '^$' -fuzz '^FuzzArena$' -fuzztime 10m
//
// A failing input is saved under emesh/testdata/fuzz/FuzzArena/ and rerun
// by every plain `go test` from then on; commit it with the fix.

import (
	"sort"
	"testing"
)

// FuzzArena drives an Arena with a fuzzed sequence of allocations and
// frees and checks it against a model that knows only the live blocks:
// blocks never overlap, lie inside the arena and are aligned; an
// allocation takes the lowest gap that fits (first fit) and fails only when
// no gap fits; bad frees are refused; freeing everything leaves one free
// block of the whole arena.
func FuzzArena(f *testing.F) {
	f.Add(uint16(64), []byte{0, 8, 0, 16, 1, 0, 0, 8, 2, 3})
	f.Add(uint16(4096), []byte{0, 200, 0, 100, 0, 50, 1, 1, 0, 90, 0, 255, 1, 0, 1, 0, 0, 0, 3, 7})
	f.Add(uint16(1), []byte{0, 1, 0, 0, 0, 1, 1, 5, 4, 0})
	f.Add(uint16(512), []byte{4, 4, 0, 64, 0, 64, 0, 64, 1, 1, 0, 32, 0, 32, 1, 0, 0, 255})
	f.Fuzz(func(t *testing.T, words uint16, ops []byte) {
		size := Align * (1 + int(words)%1024) // up to 8 KiB
		a := newArena(make([]byte, size))
		live := map[int]int{} // offset -> rounded size
		for i := 0; i+1 < len(ops); i += 2 {
			arg := int(ops[i+1])
			switch ops[i] % 5 {
			case 0, 4: // allocate: small, or scaled up to the whole arena and past it
				n := arg
				if ops[i]%5 == 4 {
					n = arg * size / 128
				}
				checkAlloc(t, a, live, n)
			case 1: // free the arg-th live block
				if len(live) == 0 {
					continue
				}
				off := sortedOffsets(live)[arg%len(live)]
				if !a.Free(off) {
					t.Fatalf("Free(%#x) of a live block refused", off)
				}
				delete(live, off)
			case 2: // free an offset that is not a block start, or a block twice
				off := arg * Align
				if _, ok := live[off]; ok {
					off++
				}
				if a.Free(off) {
					t.Fatalf("Free(%#x) accepted though no block starts there", off)
				}
			case 3: // odd sizes: negative, zero, exactly the arena, one past
				checkAlloc(t, a, live, []int{-1 - arg, 0, size, size + 1 + arg}[arg%4])
			}
			checkArena(t, a, live)
		}
		for off := range live {
			if !a.Free(off) {
				t.Fatalf("Free(%#x) of a live block refused", off)
			}
		}
		if len(a.free) != 1 || a.free[0] != (extent{0, size}) || a.InUse() != 0 {
			t.Fatalf("after freeing everything: free extents %v, %d bytes in use; want one extent of %d", a.free, a.InUse(), size)
		}
		if off, ok := a.Alloc(size); !ok || off != 0 {
			t.Fatalf("Alloc of the whole arena after freeing everything: %#x, %v", off, ok)
		}
	})
}

// checkAlloc allocates n bytes and checks the result against the model:
// the lowest gap between live blocks that holds n rounded up to Align.
func checkAlloc(t *testing.T, a *Arena, live map[int]int, n int) {
	t.Helper()
	need := (max(n, 1) + Align - 1) / Align * Align
	want := -1
	if n >= 0 {
		for _, g := range gapsBetween(live, a.Size()) {
			if g.size >= need {
				want = g.off
				break
			}
		}
	}
	off, ok := a.Alloc(n)
	switch {
	case ok != (want >= 0):
		t.Fatalf("Alloc(%d) = %v; the model says %v (live blocks %v)", n, ok, want >= 0, live)
	case ok && off != want:
		t.Fatalf("Alloc(%d) = %#x; first fit is %#x (live blocks %v)", n, off, want, live)
	case ok:
		live[off] = need
	}
}

// gapsBetween is the free space the model expects: the gaps between the
// live blocks of an arena of size bytes, in address order.
func gapsBetween(live map[int]int, size int) []extent {
	at, gaps := 0, []extent(nil)
	for _, off := range append(sortedOffsets(live), size) {
		if off > at {
			gaps = append(gaps, extent{at, off - at})
		}
		if off < size {
			at = off + live[off]
		}
	}
	return gaps
}

// checkArena compares the arena's bookkeeping with the live blocks.
func checkArena(t *testing.T, a *Arena, live map[int]int) {
	t.Helper()
	end, total := 0, 0
	for _, off := range sortedOffsets(live) {
		size := live[off]
		switch {
		case off%Align != 0 || size%Align != 0:
			t.Fatalf("block %#x+%d not aligned to %d", off, size, Align)
		case off < end:
			t.Fatalf("block %#x overlaps the one before it (ending at %#x)", off, end)
		case off+size > a.Size():
			t.Fatalf("block %#x+%d runs past the arena's %d bytes", off, size, a.Size())
		case a.used[off] != size:
			t.Fatalf("block %#x: the arena records %d bytes, the model %d", off, a.used[off], size)
		}
		end, total = off+size, total+size
	}
	if len(a.used) != len(live) || a.InUse() != total {
		t.Fatalf("the arena has %d blocks (%d bytes), the model %d (%d bytes)", len(a.used), a.InUse(), len(live), total)
	}
	// The free extents are exactly the gaps between live blocks.
	gaps := gapsBetween(live, a.Size())
	if len(gaps) != len(a.free) {
		t.Fatalf("free extents %v; the gaps between blocks are %v", a.free, gaps)
	}
	for i := range gaps {
		if gaps[i] != a.free[i] {
			t.Fatalf("free extents %v; the gaps between blocks are %v", a.free, gaps)
		}
	}
}

func sortedOffsets(live map[int]int) []int {
	offs := make([]int, 0, len(live))
	for off := range live {
		offs = append(offs, off)
	}
	sort.Ints(offs)
	return offs
}
