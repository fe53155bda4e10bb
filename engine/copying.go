package engine

// copyingTransport hands a receiver copies: Post copies the sender's
// blocks into per-receiver blocks and poisons and empties the sender's,
// as a transport between processes would, so a layer that kept reading
// the sender's memory, or wrote to it after posting, fails over it. The
// engine's tests run over it (go test ./engine -transport=copy), and the
// library's with EBSP_WORLD=copy.
type copyingTransport struct {
	out [][lanes][]*Block // by source, lane, destination
	in  [][lanes][]*Block // by destination, lane, source: written by the source
}

// NewCopyingTransport is the test world of n cores (copyingTransport).
func NewCopyingTransport(n int) Transport {
	t := &copyingTransport{out: make([][lanes][]*Block, n), in: make([][lanes][]*Block, n)}
	for dst := range t.in {
		for lane := range t.in[dst] {
			t.in[dst][lane] = make([]*Block, n)
			t.out[dst][lane] = make([]*Block, n)
		}
	}
	return t
}

func (t *copyingTransport) Out(lane Lane, src, dst int) *Block {
	blk := t.out[src][lane][dst]
	if blk == nil {
		blk = newBlock()
		t.out[src][lane][dst] = blk
	}
	return blk
}

func (t *copyingTransport) Post(lane Lane, src int) {
	for dst, blk := range t.out[src][lane] {
		if blk == nil || blk.used == 0 {
			continue
		}
		cp := t.in[dst][lane][src]
		if cp == nil {
			cp = newBlock()
			t.in[dst][lane][src] = cp
		}
		if err := cp.grow(blk.used); err != nil {
			panic(err)
		}
		copy(cp.take(blk.used), blk.mem[:blk.used])
		cp.count, cp.bytes = blk.count, blk.bytes
		for i := range blk.mem[:blk.used] {
			blk.mem[i] = 0xEE // a layer still reading the sender's block sees garbage
		}
		blk.clear()
	}
}

func (t *copyingTransport) In(lane Lane, src, dst int) *Block { return t.in[dst][lane][src] }

func (t *copyingTransport) Done(lane Lane, dst int) {
	for _, blk := range t.in[dst][lane] {
		if blk != nil {
			blk.clear()
		}
	}
}

func (t *copyingTransport) Reset(pid int) {
	for lane := range t.out[pid] {
		for _, blk := range t.out[pid][lane] {
			if blk != nil {
				blk.clear()
			}
		}
	}
}

func (t *copyingTransport) Release() {
	for i := range t.out {
		freeBlocks(t.out[i][:])
		freeBlocks(t.in[i][:])
	}
}

func (t *copyingTransport) Local(int) bool { return true }
