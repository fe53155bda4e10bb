package engine

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"libebsp/emesh"
)

// bsplibFace is the BSPlib face's Face (faces/bsplib, which imports the
// engine), as a section gives it.
var bsplibFace = Face{
	RunName:             "BSPlib section %d",
	WholeTag:            true,
	Finished:            "returned from its SPMD function without bsp_end",
	RefuseHost:          "a BSPlib SPMD section (bsp.h) is running; " + MixedFaces,
	RefuseCore:          "an EBSP call (host_bsp.h or e_bsp.h) in a BSPlib SPMD section (bsp.h); " + MixedFaces,
	KernelName:          "BSPlib SPMD section",
	RegistrationsAtSync: true,
	ReportsToStderr:     true,
}

// A BSPlib section is a run of the machine in Standard mode; the EBSP
// host's state before it comes back after it, and the two faces refuse
// each other's calls meanwhile.
func TestStandardSectionLifecycle(t *testing.T) {
	m := NewMachine(emesh.DefaultMesh)
	fn := 1
	require.NoError(t, m.RegisterKernel("k", unsafe.Pointer(&fn)))
	_, err := m.Init("k", nil) // an EBSP host that only called bsp_init
	require.NoError(t, err)
	_, err = m.SetHostTagsize(12)
	require.NoError(t, err)

	assert.ErrorContains(t, m.BeginStandard(17, bsplibFace), "1..16")
	assert.False(t, m.standard)
	require.NoError(t, m.BeginStandard(3, bsplibFace))
	assert.True(t, m.standard)
	assert.True(t, m.comm.atSync, "the face's registration rules hold in the section")
	assert.Equal(t, "BSPlib SPMD section", m.kernel.Name)
	assert.ErrorContains(t, m.BeginStandard(3, bsplibFace), "already running on this machine")
	require.NoError(t, m.StartRun())
	assert.Equal(t, 0, m.Core(2).comm.tagsize, "BSPlib's tag size starts at 0")

	_, err = m.Init("k", nil)
	assert.ErrorContains(t, err, "bsp_init: a BSPlib SPMD section (bsp.h) is running; "+MixedFaces)
	_, err = m.Begin(2)
	assert.ErrorContains(t, err, "bsp_begin: a BSPlib SPMD section")
	assert.Contains(t, m.Core(0).Begin().Error(), "an EBSP call (host_bsp.h or e_bsp.h) in a BSPlib SPMD section")
	_, cerr := m.Core(1).End()
	assert.Contains(t, cerr.Error(), "bsp_end: an EBSP call")

	c := m.Core(1)
	_, cerr = c.EndStandard()
	assert.Contains(t, cerr.Error(), "called before bsp_begin")
	assert.Nil(t, c.BeginStandard())
	assert.Contains(t, c.BeginStandard().Error(), "called twice in one SPMD section")
	_, cerr = c.EndStandard()
	assert.Nil(t, cerr)
	_, cerr = c.EndStandard()
	assert.Contains(t, cerr.Error(), "called twice")

	m.RecordAbort(1, "bsp_abort", "stop")
	abort := m.EndStandard()
	require.NotNil(t, abort)
	assert.Equal(t, 1, abort.Pid)
	assert.False(t, m.standard)
	assert.False(t, m.comm.atSync, "the host's registration rules come back")
	assert.Equal(t, HostInitialized, m.State(), "the EBSP host's bsp_init survives the section")
	assert.Equal(t, 12, m.HostTagsize())

	// the EBSP host can go on; with its cores loaded, BSPlib is refused
	_, err = m.Begin(2)
	require.NoError(t, err)
	assert.ErrorContains(t, m.BeginStandard(2, bsplibFace), `the EBSP host has 2 cores loaded (bsp_begin of host_bsp.h, kernel "k"); `+MixedFaces)
	require.NoError(t, m.End())
	require.NoError(t, m.BeginStandard(1, bsplibFace))
	assert.Nil(t, m.EndStandard(), "a section that never started its run ends cleanly")
	assert.Equal(t, HostIdle, m.State())
}

// bsp_get_tag copies a message's whole tag for a face that says so (the
// BSPlib face), at most the tag size in force otherwise.
func TestStandardTagRoom(t *testing.T) {
	m := newTestMachine(t, 1)
	c := m.Core(0)
	assert.Equal(t, 4, c.standardTagRoom(4))
	m.face.WholeTag = true
	assert.Greater(t, c.standardTagRoom(4), 1<<30)
	m.face.WholeTag = false
}
