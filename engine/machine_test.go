package engine

import (
	"os"
	"path/filepath"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"libebsp/emesh"
)

func TestLifecycleOrder(t *testing.T) {
	m := NewMachine(emesh.DefaultMesh)
	assert.Equal(t, 0, m.Available(), "bsp_nprocs is 0 before bsp_init")
	_, err := m.Begin(4)
	assert.Equal(t, ErrBeginOrder, err)
	assert.Equal(t, ErrSpmdOrder, m.StartRun())
	assert.Equal(t, ErrEndOrder, m.End())

	fn := 42
	assert.Equal(t, ErrNotRegistered, m.RegisterKernel("k", nil), "nothing to remove")
	require.NoError(t, m.RegisterKernel("k", unsafe.Pointer(&fn)))
	k, err := m.Init("k", nil)
	require.NoError(t, err)
	assert.True(t, k.Registered())
	assert.Equal(t, 16, m.Available())
	_, err = m.Init("k", nil)
	assert.Equal(t, ErrInitTwice, err)
	assert.Equal(t, ErrSpmdOrder, m.StartRun())

	_, err = m.Begin(17)
	assert.EqualError(t, err, "ERROR: bsp_begin called with nprocs = 17.")
	_, err = m.Begin(0)
	assert.EqualError(t, err, "ERROR: bsp_begin called with nprocs = 0.")
	_, err = m.Begin(5) // any count, not only multiples of 4
	require.NoError(t, err)
	assert.Equal(t, 5, m.Nprocs())
	_, err = m.Begin(5)
	assert.Equal(t, ErrBeginOrder, err)
	_, err = m.Init("k", nil)
	assert.Equal(t, ErrInitTwice, err)

	for run := 0; run < 3; run++ { // repeated runs: more than the board allowed
		require.NoError(t, m.StartRun())
		assert.ErrorContains(t, m.StartRun(), "in progress")
		assert.ErrorContains(t, m.End(), "during a run")
		assert.Nil(t, m.FinishRun())
	}
	_, err = m.Begin(5)
	assert.Equal(t, ErrBeginOrder, err, "bsp_begin after a run")
	require.NoError(t, m.End())
	assert.Equal(t, HostIdle, m.State())
	assert.Equal(t, 0, m.Available(), "bsp_nprocs is 0 after bsp_end")
	assert.Equal(t, ErrEndOrder, m.End())
}

// bsp_init followed by bsp_end, without bsp_begin, is legal and forgets
// the kernel.
func TestInitThenEnd(t *testing.T) {
	m := NewMachine(emesh.DefaultMesh)
	fn := 42
	require.NoError(t, m.RegisterKernel("k", unsafe.Pointer(&fn)))
	_, err := m.Init("k", nil)
	require.NoError(t, err)
	require.NoError(t, m.End())
	assert.Equal(t, HostIdle, m.State())
	_, err = m.Begin(4)
	assert.Equal(t, ErrBeginOrder, err, "the kernel is forgotten")
	_, err = m.Init("k", nil)
	require.NoError(t, err, "and bsp_init works again")
}

// A failed bsp_init leaves the machine idle: the next bsp_init may succeed.
func TestFailedInitStaysIdle(t *testing.T) {
	m := NewMachine(emesh.DefaultMesh)
	_, err := m.Init("e_missing.elf", []string{t.TempDir()})
	assert.ErrorContains(t, err, "not found")
	assert.Equal(t, HostIdle, m.State())
	fn := 42
	require.NoError(t, m.RegisterKernel("k", unsafe.Pointer(&fn)))
	_, err = m.Init("k", nil)
	require.NoError(t, err)
}

func TestSuperstepsCountPerRun(t *testing.T) {
	m := runSPMD(t, 8, func(c kcore) {
		for i := 0; i < 5; i++ {
			c.Sync()
		}
		assert.Equal(t, 5, c.Superstep())
	})
	runAgain(t, m, func(c kcore) { assert.Equal(t, 0, c.Superstep()) })
}

func TestAbortKeepsFirst(t *testing.T) {
	m := runSPMD(t, 2, func(c kcore) {})
	require.NoError(t, m.StartRun())
	assert.True(t, m.RecordAbort(1, "bsp_abort", "first"))
	assert.False(t, m.RecordAbort(0, "bsp_abort", "second"))
	assert.True(t, m.Aborted())
	a := m.FinishRun()
	require.NotNil(t, a)
	assert.Equal(t, 1, a.Pid)
	assert.Equal(t, "first", a.Message)
	require.NoError(t, m.StartRun())
	assert.False(t, m.Aborted(), "the next run starts clean")
}

func TestStallReportGroupsCores(t *testing.T) {
	m := runSPMD(t, 6, func(c kcore) {})
	where := func(pid int) Where {
		if pid == 3 {
			return WhereFinished
		}
		return WhereSync
	}
	lines := m.StallReport(DeadlockHeader, where)
	assert.Equal(t, []string{
		"BSP ERROR: deadlock: the cores can no longer all meet in one synchronization",
		"  cores 00-02,04-05 waiting in bsp_sync (superstep 0)",
		"  core 03 returned from its kernel (superstep 0)",
	}, lines)
}

func TestFindKernelFile(t *testing.T) {
	dir := t.TempDir()
	exe, _ := os.Executable() // an ELF executable, not a shared object
	data, err := os.ReadFile(exe)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "e_exec.elf"), data, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "e_hello.srec"), []byte("S00F000068656C6C6F\n"), 0o644))
	epiphany := append([]byte(nil), data...)
	epiphany[18], epiphany[19] = 0x23, 0x12 // e_machine = Epiphany
	require.NoError(t, os.WriteFile(filepath.Join(dir, "e_chip.elf"), epiphany, 0o644))

	_, err = FindKernelFile("e_missing.elf", []string{dir})
	assert.ErrorContains(t, err, "not found")
	assert.ErrorContains(t, err, "gcc -shared -fPIC")
	_, err = FindKernelFile("e_hello.srec", []string{dir})
	assert.ErrorContains(t, err, "S-record")
	_, err = FindKernelFile("e_chip.elf", []string{dir})
	assert.ErrorContains(t, err, "Epiphany binary")
	_, err = FindKernelFile("e_exec.elf", []string{dir})
	assert.ErrorContains(t, err, "executable, not a shared object")
}

func TestKernelSearchDirs(t *testing.T) {
	assert.Equal(t, []string{"/exe", "/cwd", "/a", "/b"}, KernelSearchDirs("/exe", "/cwd", "/a::/b"))
}
