package engine

// Face is what the face that owns the machine gives the engine: the rules
// and words in which the faces differ, as values, so that the engine never
// asks which face runs. The EBSP host's face is given when the machine is
// made (SetFace); a BSPlib section gives its own to BeginStandard for the
// section's run, and the host's comes back at EndStandard.
type Face struct {
	// RunName names a run in traces; %d is the run's number.
	RunName string
	// WholeTag: bsp_get_tag copies a message's whole tag, not at most the
	// tag size in force.
	WholeTag bool
	// Finished is how a report names the place of a core that returned
	// from its function without bsp_end; "" for WhereFinished's words.
	Finished string
	// RefuseHost is why the EBSP host's bsp_init and bsp_begin are refused
	// while this face owns the machine; "" when they are not.
	RefuseHost string
	// RefuseCore is why a core's EBSP bsp_begin and bsp_end are refused
	// while this face owns the machine; "" when they are not.
	RefuseCore string
	// KernelName names the run's kernel in reports when the face loads
	// none (a BSPlib section runs the program's own function).
	KernelName string
	// RegistrationsAtSync: registrations are collective and take effect
	// at the next sync, several per superstep, their sizes enforced unless
	// the checks are off, whatever the check level (BSPlib's rules).
	RegistrationsAtSync bool
	// ReportsToStderr: the program's stdout is its own output, so the
	// library's reports and diagnostics of its cores go to stderr (on the
	// board, the host reads them from the cores' stdout).
	ReportsToStderr bool
}

// SetFace gives the machine the EBSP host's face, while no run is on.
func (m *Machine) SetFace(f Face) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.face = f
}

// Face is what the face that owns the machine gave it. It changes only
// while no core runs, so cores read it without the lock.
func (m *Machine) Face() Face { return m.face }
