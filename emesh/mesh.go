// Package emesh emulates the Epiphany hardware that BSP programs are shaped
// by: the mesh of cores, their local memory, the shared external memory, the
// DMA engines and the 600 MHz clock. It knows nothing of BSP.
package emesh

import (
	"fmt"
	"strconv"
	"strings"
)

// MaxSide bounds each mesh dimension; 64x64 cores is far beyond any board
// and still cheap to emulate.
const MaxSide = 64

// Mesh is the grid of cores. Cores are numbered row by row.
type Mesh struct {
	Rows, Cols int
}

// DefaultMesh is the 16-core Parallella chip.
var DefaultMesh = Mesh{Rows: 4, Cols: 4}

// MeshEnv names the environment variable that sets the mesh, e.g. "8x8"
// (read by package env; ParseMesh reads its value).
const MeshEnv = "EBSP_MESH"

// ParseMesh reads "RxC" (also "R*C" or a single number N meaning 1xN).
func ParseMesh(s string) (Mesh, error) {
	s = strings.TrimSpace(strings.ToLower(s))
	parts := strings.Split(strings.ReplaceAll(s, "*", "x"), "x")
	var dims []int
	for _, p := range parts {
		v, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil {
			return Mesh{}, fmt.Errorf("mesh %q: %q is not a number", s, p)
		}
		dims = append(dims, v)
	}
	var m Mesh
	switch len(dims) {
	case 1:
		m = Mesh{Rows: 1, Cols: dims[0]}
	case 2:
		m = Mesh{Rows: dims[0], Cols: dims[1]}
	default:
		return Mesh{}, fmt.Errorf("mesh %q: want ROWSxCOLS, e.g. 4x4", s)
	}
	if m.Rows < 1 || m.Cols < 1 || m.Rows > MaxSide || m.Cols > MaxSide {
		return Mesh{}, fmt.Errorf("mesh %q: each side must be 1..%d", s, MaxSide)
	}
	return m, nil
}

// Cores is the number of cores in the mesh.
func (m Mesh) Cores() int { return m.Rows * m.Cols }

// Coords gives the row and column of core pid.
func (m Mesh) Coords(pid int) (row, col int) { return pid / m.Cols, pid % m.Cols }

// Hops is the number of mesh links between two cores (XY routing).
func (m Mesh) Hops(a, b int) int {
	ra, ca := m.Coords(a)
	rb, cb := m.Coords(b)
	return abs(ra-rb) + abs(ca-cb)
}

func (m Mesh) String() string { return fmt.Sprintf("%dx%d", m.Rows, m.Cols) }

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// SquarestMesh is the mesh of n cores closest to a square whose sides are
// at most MaxSide, for a core count given as a number (bsprun -n P, the
// cores of an MPI job).
func SquarestMesh(n int) (Mesh, error) {
	rows := 0
	for r := 1; r*r <= n; r++ {
		if n%r == 0 && n/r <= MaxSide {
			rows = r
		}
	}
	if rows == 0 {
		return Mesh{}, fmt.Errorf("%d cores do not form a mesh with sides of at most %d", n, MaxSide)
	}
	return Mesh{Rows: rows, Cols: n / rows}, nil
}
