// Package grid places the LQCD face's logical grid (lqcd_msg.h's
// declareTopology) on the mesh: the core of each logical rank, so that
// logical neighbours are few mesh hops apart. Pure Go, tested alone.
package grid

import (
	"fmt"
	"strings"
)

// MaxDims bounds the dimensions of an LQCD topology (LQCD_MAX_DIMS of
// include/lqcd_msg.h).
const MaxDims = 8

// Placement places the periodic logical grid dims (dims[0], x, varies
// fastest) of nprocs cores on a rows x cols mesh whose first nprocs
// positions, row by row, are the cores. It returns pidOf[rank], the core
// of each logical rank.
//
// Candidates: the lexicographic order (rank == pid), every split of the
// dimensions into a group laid along the mesh's columns and one along its
// rows (each group folded boustrophedon, so the fastest dimension of a
// group stays on neighbouring cores), a snake through the rows and a
// Hamiltonian cycle of the mesh (for rings). The candidate with the fewest
// mesh hops summed over all pairs of logical neighbours wins; ties go to
// the earlier candidate, so the lexicographic order wins whenever it is as
// good as any (4x4 on the 4x4 mesh is the identity).
func Placement(rows, cols, nprocs int, dims []int) ([]int, error) {
	if err := checkDims(rows*cols, nprocs, dims); err != nil {
		return nil, err
	}
	best := identity(nprocs)
	bestScore := hopsOf(cols, dims, best)
	try := func(pidOf []int) {
		if pidOf == nil {
			return
		}
		if s := hopsOf(cols, dims, pidOf); s < bestScore {
			best, bestScore = pidOf, s
		}
	}
	if nprocs%cols == 0 {
		fullRows := nprocs / cols
		for mask := 0; mask < 1<<len(dims); mask++ {
			for _, fold := range []bool{false, true} {
				try(splitOf(cols, fullRows, dims, mask, fold))
			}
		}
		try(snakeOf(fullRows, cols))
		try(cycleOf(fullRows, cols))
	}
	return best, nil
}

func checkDims(cores, nprocs int, dims []int) error {
	if len(dims) < 1 || len(dims) > MaxDims {
		return fmt.Errorf("%d dimensions (want 1..%d)", len(dims), MaxDims)
	}
	if nprocs < 1 || nprocs > cores {
		return fmt.Errorf("%d cores on a mesh of %d", nprocs, cores)
	}
	product := 1
	for i, d := range dims {
		if d < 1 {
			return fmt.Errorf("dimension %d is %d (want >= 1)", i, d)
		}
		product *= d
		if product > nprocs {
			break
		}
	}
	if product != nprocs {
		return fmt.Errorf("the dimensions %s make %s cores, the run has %d", dimString(dims), productString(dims), nprocs)
	}
	return nil
}

func dimString(dims []int) string {
	parts := make([]string, len(dims))
	for i, d := range dims {
		parts[i] = fmt.Sprint(d)
	}
	return strings.Join(parts, "x")
}

func productString(dims []int) string {
	p := 1
	for _, d := range dims {
		if d > (1<<30)/p { // before multiplying: int is 32 bits in the 386 build
			return "more than 2^30"
		}
		p *= d
	}
	return fmt.Sprint(p)
}

func identity(n int) []int {
	v := make([]int, n)
	for i := range v {
		v[i] = i
	}
	return v
}

// coordsOf splits a rank into grid coordinates, x fastest.
func coordsOf(rank int, dims []int, out []int) {
	for i, d := range dims {
		out[i] = rank % d
		rank /= d
	}
}

// rankOf is the inverse of coordsOf, periodic.
func rankOf(coords, dims []int) int {
	r := 0
	for i := len(dims) - 1; i >= 0; i-- {
		c := ((coords[i] % dims[i]) + dims[i]) % dims[i]
		r = r*dims[i] + c
	}
	return r
}

// hopsOf sums the mesh distance of every pair (rank, its +1 neighbour in
// each dimension) under the placement pidOf.
func hopsOf(cols int, dims []int, pidOf []int) int {
	coords := make([]int, len(dims))
	total := 0
	for r := range pidOf {
		coordsOf(r, dims, coords)
		for d := range dims {
			if dims[d] == 1 {
				continue
			}
			coords[d]++
			n := pidOf[rankOf(coords, dims)]
			coords[d]--
			a, b := pidOf[r], n
			total += absInt(a/cols-b/cols) + absInt(a%cols-b%cols)
		}
	}
	return total
}

func absInt(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// folded gives the position of the coordinates of a group of dimensions
// along one mesh axis: mixed radix, the group's first dimension fastest,
// boustrophedon when fold is set (each digit runs backwards when the digits
// above it sum to an odd position).
func folded(coords, radix []int, fold bool) int {
	v := 0
	for i := len(radix) - 1; i >= 0; i-- {
		digit := coords[i]
		if fold && v%2 == 1 {
			digit = radix[i] - 1 - digit
		}
		v = v*radix[i] + digit
	}
	return v
}

// splitOf lays the dimensions in mask along the columns and the others
// along the rows; nil when the products do not match the mesh.
func splitOf(cols, rows int, dims []int, mask int, fold bool) []int {
	var xr, yr []int
	for i, d := range dims {
		if mask&(1<<i) != 0 {
			xr = append(xr, d)
		} else {
			yr = append(yr, d)
		}
	}
	prod := func(v []int) int {
		p := 1
		for _, d := range v {
			p *= d
		}
		return p
	}
	if prod(xr) != cols || prod(yr) != rows {
		return nil
	}
	n := cols * rows
	pidOf := make([]int, n)
	coords := make([]int, len(dims))
	for r := 0; r < n; r++ {
		coordsOf(r, dims, coords)
		var xc, yc []int
		for i := range dims {
			if mask&(1<<i) != 0 {
				xc = append(xc, coords[i])
			} else {
				yc = append(yc, coords[i])
			}
		}
		pidOf[r] = folded(yc, yr, fold)*cols + folded(xc, xr, fold)
	}
	return pidOf
}

// snakeOf is the boustrophedon path through the rows (rank i on its
// i-th core).
func snakeOf(rows, cols int) []int {
	path := make([]int, 0, rows*cols)
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			if r%2 == 1 {
				path = append(path, r*cols+cols-1-c)
			} else {
				path = append(path, r*cols+c)
			}
		}
	}
	return path
}

// cycleOf is a Hamiltonian cycle of the rows x cols mesh (every step,
// the last back to the first included, is one hop), or nil when none
// exists (both sides odd, or a side of 1 with more than 2 cores).
func cycleOf(rows, cols int) []int {
	if rows*cols <= 2 {
		return snakeOf(rows, cols)
	}
	if rows < 2 || cols < 2 {
		return nil
	}
	transpose := false
	if rows%2 == 1 {
		if cols%2 == 1 {
			return nil
		}
		rows, cols, transpose = cols, rows, true
	}
	// rows is even: along row 0, snake back through columns 1.. of the other
	// rows, home along column 0.
	var cells [][2]int
	for c := 0; c < cols; c++ {
		cells = append(cells, [2]int{0, c})
	}
	for r := 1; r < rows; r++ {
		for i := 1; i < cols; i++ {
			c := cols - i
			if r%2 == 0 {
				c = i
			}
			cells = append(cells, [2]int{r, c})
		}
	}
	for r := rows - 1; r >= 1; r-- {
		cells = append(cells, [2]int{r, 0})
	}
	path := make([]int, len(cells))
	for i, cell := range cells {
		r, c := cell[0], cell[1]
		if transpose {
			path[i] = c*rows + r // the real mesh has `rows` columns
		} else {
			path[i] = r*cols + c
		}
	}
	return path
}
