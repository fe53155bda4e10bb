package grid

import (
	"strings"
	"testing"
)

// neighbourHops returns, for every rank and dimension, the mesh distance to
// its +1 neighbour (periodic).
func neighbourHops(cols int, dims, pidOf []int) (maxHops, total int) {
	coords := make([]int, len(dims))
	for r := range pidOf {
		coordsOf(r, dims, coords)
		for d := range dims {
			coords[d]++
			a, b := pidOf[r], pidOf[rankOf(coords, dims)]
			coords[d]--
			h := absInt(a/cols-b/cols) + absInt(a%cols-b%cols)
			total += h
			maxHops = max(maxHops, h)
		}
	}
	return maxHops, total
}

func checkPermutation(t *testing.T, pidOf []int, n int) {
	t.Helper()
	if len(pidOf) != n {
		t.Fatalf("%d ranks placed, want %d", len(pidOf), n)
	}
	seen := make([]bool, n)
	for r, p := range pidOf {
		if p < 0 || p >= n || seen[p] {
			t.Fatalf("rank %d on core %d: not a permutation of 0..%d: %v", r, p, n-1, pidOf)
		}
		seen[p] = true
	}
}

func TestPlacementIdentityWhenShapesMatch(t *testing.T) {
	for _, c := range []struct {
		rows, cols int
		dims       []int
	}{
		{4, 4, []int{4, 4}},
		{4, 4, []int{4, 2, 2}},
		{8, 8, []int{8, 8}},
		{8, 8, []int{8, 4, 2}},
		{2, 4, []int{4, 2}},
	} {
		pidOf, err := Placement(c.rows, c.cols, c.rows*c.cols, c.dims)
		if err != nil {
			t.Fatal(err)
		}
		for r, p := range pidOf {
			if r != p {
				t.Fatalf("%v on %dx%d: rank %d on core %d, want the identity", c.dims, c.rows, c.cols, r, p)
			}
		}
	}
}

func TestPlacementRingIsAMeshCycle(t *testing.T) {
	for _, m := range [][2]int{{4, 4}, {8, 8}, {3, 4}, {4, 3}, {2, 2}} {
		n := m[0] * m[1]
		pidOf, err := Placement(m[0], m[1], n, []int{n})
		if err != nil {
			t.Fatal(err)
		}
		checkPermutation(t, pidOf, n)
		if mx, _ := neighbourHops(m[1], []int{n}, pidOf); mx != 1 {
			t.Errorf("ring of %d on %dx%d: a neighbour %d hops away: %v", n, m[0], m[1], mx, pidOf)
		}
	}
}

func TestPlacementNeverWorseThanLexicographic(t *testing.T) {
	for _, c := range []struct {
		rows, cols, n int
		dims          []int
	}{
		{4, 4, 16, []int{2, 2, 2, 2}},
		{4, 4, 16, []int{8, 2}},
		{4, 4, 16, []int{2, 8}},
		{8, 8, 64, []int{4, 4, 2, 2}},
		{8, 8, 64, []int{2, 2, 4, 4}},
		{8, 8, 64, []int{4, 4, 4}},
		{4, 4, 12, []int{3, 4}},
		{4, 4, 12, []int{12}},
		{4, 4, 7, []int{7}},
		{4, 4, 16, []int{1, 16, 1}},
	} {
		pidOf, err := Placement(c.rows, c.cols, c.n, c.dims)
		if err != nil {
			t.Fatal(err)
		}
		checkPermutation(t, pidOf, c.n)
		_, got := neighbourHops(c.cols, c.dims, pidOf)
		_, lex := neighbourHops(c.cols, c.dims, identity(c.n))
		if got > lex {
			t.Errorf("%v on %dx%d: %d hops, lexicographic has %d", c.dims, c.rows, c.cols, got, lex)
		}
	}
	// 2x2x2x2 on 4x4: every dimension pairs mesh neighbours.
	pidOf, _ := Placement(4, 4, 16, []int{2, 2, 2, 2})
	if mx, _ := neighbourHops(4, []int{2, 2, 2, 2}, pidOf); mx > 3 {
		t.Errorf("2x2x2x2: a neighbour %d hops away", mx)
	}
}

func TestPlacementErrors(t *testing.T) {
	for _, c := range []struct {
		n    int
		dims []int
		want string
	}{
		{16, []int{4, 3}, "the dimensions 4x3 make 12 cores, the run has 16"},
		{16, []int{4, 0, 4}, "dimension 1 is 0"},
		{16, nil, "0 dimensions"},
		{16, []int{1, 1, 1, 1, 1, 1, 1, 1, 16}, "9 dimensions"},
		{16, []int{1 << 20, 1 << 20, 1 << 20}, "make more than 2^30 cores"},
		{32, []int{32}, "32 cores on a mesh of 16"},
	} {
		_, err := Placement(4, 4, c.n, c.dims)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.dims, err, c.want)
		}
	}
}

func TestCoordsRank(t *testing.T) {
	dims := []int{3, 2, 4}
	coords := make([]int, 3)
	for r := 0; r < 24; r++ {
		coordsOf(r, dims, coords)
		if got := rankOf(coords, dims); got != r {
			t.Fatalf("rank %d -> %v -> %d", r, coords, got)
		}
	}
	if got := rankOf([]int{-1, 2, 4}, dims); got != 2 {
		t.Fatalf("periodic rank of (-1,2,4) = %d, want 2", got)
	}
}
