package runtime

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
	_, err := m.Begin(4)
	assert.ErrorIs(t, err, ErrNoKernel)
	assert.ErrorContains(t, m.StartRun(), "before bsp_begin")
	assert.ErrorContains(t, m.End(), "before bsp_begin")

	fn := 42
	require.NoError(t, m.RegisterKernel("k", unsafe.Pointer(&fn)))
	k, err := m.Init("k", nil)
	require.NoError(t, err)
	assert.True(t, k.Registered())

	_, err = m.Begin(17)
	assert.ErrorContains(t, err, "1..16")
	_, err = m.Begin(0)
	assert.Error(t, err)
	_, err = m.Begin(5) // any count, not only multiples of 4
	require.NoError(t, err)
	assert.Equal(t, 5, m.Nprocs())
	_, err = m.Begin(5)
	assert.ErrorContains(t, err, "already begun")
	_, err = m.Init("k", nil)
	assert.ErrorContains(t, err, "bsp_end first")

	for run := 0; run < 3; run++ {
		require.NoError(t, m.StartRun())
		assert.ErrorContains(t, m.StartRun(), "in progress")
		assert.ErrorContains(t, m.End(), "during a run")
		assert.Nil(t, m.FinishRun())
	}
	require.NoError(t, m.End())
	assert.Equal(t, HostIdle, m.State())
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
