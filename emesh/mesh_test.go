package emesh

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseMesh(t *testing.T) {
	for in, want := range map[string]Mesh{"4x4": {4, 4}, "32X32": {32, 32}, "2*8": {2, 8}, "12": {1, 12}} {
		got, err := ParseMesh(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, bad := range []string{"", "0x4", "4x", "axb", "65x1", "1x2x3"} {
		_, err := ParseMesh(bad)
		assert.Error(t, err, bad)
	}
}

func TestMeshGeometry(t *testing.T) {
	m := Mesh{Rows: 4, Cols: 4}
	assert.Equal(t, 16, m.Cores())
	r, c := m.Coords(6)
	assert.Equal(t, [2]int{1, 2}, [2]int{r, c})
	assert.Equal(t, 6, m.Hops(0, 15))
	got, err := ParseMesh("32x32")
	require.NoError(t, err)
	assert.Equal(t, 1024, got.Cores())
}

func TestCycles(t *testing.T) {
	assert.Equal(t, uint64(1000), CyclesToNanos(600))
	assert.Equal(t, uint64(2), CyclesToNanos(1), "rounded up")
}
