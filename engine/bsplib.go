package engine

import (
	"fmt"

	"libebsp/emesh"
)

// The standard BSPlib face (include/bsp.h, faces/bsplib): an SPMD
// section started by bsp_begin(P) in the program itself, on the same
// engine as the EBSP face's runs. The machine runs such a section as one
// run with no kernel to load; the run follows the rules the face gives
// BeginStandard (Face: registrations in force from the next bsp_sync
// whatever the check level, its words in reports, the calls of the other
// face it refuses) and the BSPlib rules that bind every run (all gets of a
// superstep before its puts; a message keeps its tag size).

// MixedFaces is the end of every message refusing to mix the two faces.
const MixedFaces = "a program may not mix the EBSP face (host_bsp.h, e_bsp.h) and the BSPlib face (bsp.h) in one SPMD run"

// standardSaved is the EBSP host's state that a BSPlib section puts aside.
type standardSaved struct {
	kernel  Kernel
	state   HostState
	hostTag int
	face    Face
}

// BeginStandard is bsp_begin(nprocs) of the BSPlib face: the machine
// reserves nprocs cores for an SPMD section and enters Standard mode, with
// the face's rules, until EndStandard; the caller then starts the run
// (StartRun). An EBSP host that only called bsp_init keeps its kernel for
// after the section; one with cores loaded is refused.
func (m *Machine) BeginStandard(nprocs int, face Face) error {
	m.mu.Lock()
	if m.standard {
		m.mu.Unlock()
		return fmt.Errorf("bsp_begin: a BSPlib SPMD section is already running on this machine (a nested section has a machine of its own)")
	}
	if m.state >= HostBegun {
		m.mu.Unlock()
		return fmt.Errorf("bsp_begin: the EBSP host has %d cores loaded (bsp_begin of host_bsp.h, kernel %q); %s: call its bsp_end first",
			len(m.cores), m.kernel.Name, MixedFaces)
	}
	if nprocs < 1 || nprocs > m.mesh.Cores() {
		m.mu.Unlock()
		return fmt.Errorf("bsp_begin: %d cores requested; this %s mesh has 1..%d (set %s to change it)",
			nprocs, m.mesh, m.mesh.Cores(), emesh.MeshEnv)
	}
	m.saved = standardSaved{kernel: m.kernel, state: m.state, hostTag: m.comm.hostTag, face: m.face}
	m.kernel = Kernel{Name: face.KernelName}
	m.state = HostInitialized
	m.comm.hostTag = 0 // BSPlib: the tag size starts at 0
	m.mu.Unlock()
	m.SetRegistrationsAtSync(face.RegistrationsAtSync)
	if _, err := m.Begin(nprocs); err != nil {
		m.restoreEBSP()
		return err
	}
	m.mu.Lock()
	m.standard = true
	m.face = face
	m.mu.Unlock()
	return nil
}

// EndStandard ends the section begun by BeginStandard (and its run, if
// started); it returns the abort that stopped the run, if any.
func (m *Machine) EndStandard() *Abort {
	var abort *Abort
	if m.State() == HostRunning {
		abort = m.FinishRun()
	}
	_ = m.End() // the state is HostBegun here: End cannot fail
	m.restoreEBSP()
	return abort
}

func (m *Machine) restoreEBSP() {
	m.SetRegistrationsAtSync(m.saved.face.RegistrationsAtSync)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.kernel, m.state, m.comm.hostTag, m.face = m.saved.kernel, m.saved.state, m.saved.hostTag, m.saved.face
	m.standard = false
}

// refusedHost refuses an EBSP host call when the face that owns the
// machine says so.
func (m *Machine) refusedHost(call string) error {
	if m.face.RefuseHost == "" {
		return nil
	}
	return fmt.Errorf("%s: %s", call, m.face.RefuseHost)
}

// BeginStandard is bsp_begin on one core of a BSPlib section.
func (c *Core) BeginStandard() *Error {
	if c.begun {
		return c.errorf("bsp_begin", "called twice in one SPMD section (a nested section starts with bsp_init on this core first)")
	}
	c.begun = true
	c.statsBegin()
	return nil
}

// EndStandard is bsp_end on one core of a BSPlib section; it reports
// whether the core must wait for the others.
func (c *Core) EndStandard() (bool, *Error) {
	if !c.begun {
		return false, c.errorf("bsp_end", "called before bsp_begin")
	}
	if c.ended {
		return false, c.errorf("bsp_end", "called twice")
	}
	c.ended = true
	if c.m.stats.on {
		// the last superstep ends at bsp_end, as on the EBSP face (End)
		c.stepArrived()
		c.stepLeft()
	}
	return true, nil
}

// Misuse is a misuse found by the C face itself, reported like the
// engine's own.
func (c *Core) Misuse(call, what string) *Error {
	return c.errorf(call, "%s", what)
}
