package bsplib

import (
	"fmt"

	"libebsp/engine"
	"libebsp/env"
	"libebsp/faces/run"
)

// The lifecycle of a BSPlib section (bsp.h): bsp_begin(P) makes the
// machine run a section of P cores, in one process or across the ranks
// of an MPI job, and bsp_end ends it; a core of a section may begin a
// nested one (MulticoreBSP's hierarchical SPMD), on a machine of its own.
// capi's exports (capi/bsplib.go, capi/nested.go) call these with its
// Library.

// Library is what a BSPlib section needs of the library beyond what every
// face needs (run.Library): the MPI job a section may span, and the C
// core table of a section.
type Library interface {
	run.Library
	// Job is the MPI job this process is a rank of; false when mpirun
	// did not start several ranks.
	Job() (Job, bool)
	// JoinSection agrees with the other ranks on the section's core count
	// (rank 0's) and makes the next run's transport the MPI world; a rank
	// without cores in it ends there. nprocs as it is without MPI.
	JoinSection(m *engine.Machine, nprocs int) (int, error)
	// LeaveSection: the section is over; on rank 0 a later one runs alone.
	LeaveSection()
	// EndQuietly ends this rank, whose job another rank ends.
	EndQuietly()
	// NewCores makes the C table of m's n cores, shared with the engine's
	// cores (nil error), and holds it for UseCores or FreeNewCores.
	NewCores(m *engine.Machine, n int) error
	// FreeNewCores frees the table NewCores made, whose run did not start.
	FreeNewCores()
	// UseCores makes the table NewCores made the running section's.
	UseCores(n int)
	// FreeCores frees the running section's table.
	FreeCores()
	// SetChecks tells the face's C calls whether to check their arguments.
	SetChecks(on bool)
	// Stderr prints text on stderr (after flushing stdout).
	Stderr(text string)
}

// Job is the MPI job of a process that mpirun started with several ranks.
type Job struct {
	Ranks, Rank, PerRank int
	// Alone: rank 0 after the first section; the other ranks ended.
	Alone bool
}

// Cores are the cores of the whole job: ranks times EBSP_RANK_CORES.
func (j Job) Cores() int { return j.Ranks * j.PerRank }

// spans tells whether the ranks of an MPI job run sections together.
func spans(lib Library) (Job, bool) {
	job, ok := lib.Job()
	return job, ok && !job.Alone
}

// complainOnce is Complain for an error every rank of an MPI job finds
// alike (the count rank 0 gave to bsp_begin): rank 0 says it.
func complainOnce(lib Library, text string) {
	if job, ok := lib.Job(); !ok || job.Rank == 0 {
		lib.Complain(text)
	}
}

// beginError is bsp_begin's error about a core count, in terms of the MPI
// job when there is one (its cores are ranks times EBSP_RANK_CORES, not an
// EBSP_MESH).
func beginError(lib Library, nprocs int, err error) error {
	job, ok := spans(lib)
	if !ok || (nprocs >= 1 && nprocs <= job.Cores()) {
		return err
	}
	return fmt.Errorf("bsp_begin: %d cores requested; mpirun started %d ranks of %d core(s) (%s): 1..%d",
		nprocs, job.Ranks, job.PerRank, env.RankCores, job.Cores())
}

// Begin is bsp_begin(nprocs) of the outermost section: the machine runs a
// section of this face, with its C core table and its run started. false
// after printing why on stderr.
func Begin(lib Library, nprocs int) bool {
	m := run.MachineForCores(lib, "bsp_begin")
	if m == nil {
		return false
	}
	nprocs, err := lib.JoinSection(m, nprocs)
	if err != nil {
		complainOnce(lib, err.Error())
		return false
	}
	if err := m.BeginStandard(nprocs, Face); err != nil {
		complainOnce(lib, beginError(lib, nprocs, err).Error())
		if job, ok := spans(lib); ok && job.Rank != 0 {
			lib.EndQuietly() // every rank found it: rank 0 alone exits with status 1, which mpirun names
		}
		return false
	}
	if err := lib.NewCores(m, nprocs); err != nil {
		m.EndStandard()
		lib.Complain("bsp_begin: " + err.Error())
		return false
	}
	lib.Configure(m)
	lib.SetChecks(m.Checks() != engine.CheckOff)
	m.SetStats(lib.Records().On())
	if err := m.StartRun(); err != nil {
		m.EndStandard()
		lib.FreeNewCores()
		lib.Complain(err.Error())
		return false
	}
	lib.UseCores(nprocs)
	return true
}

// Finish ends the outermost section: the run's records and report (when
// it was stopped) on stderr, the machine back to the EBSP host's state,
// and with release, the core table freed.
func Finish(lib Library, m *engine.Machine, release bool) {
	abort := run.Finish(lib, m)
	m.EndStandard()
	lib.LeaveSection()
	if abort != nil {
		lib.Stderr(abort.Report())
	}
	if release {
		lib.FreeCores()
	}
}

// Available is bsp_nprocs before bsp_begin: the cores of the mesh, or of
// rank 0 once the other ranks of its job ended (the EBSP host's bsp_nprocs
// is 0 before its bsp_init, as on the board).
func Available(lib Library) int {
	m := lib.Machine("bsp_nprocs")
	if m == nil {
		return 0
	}
	if job, ok := lib.Job(); ok && job.Alone {
		return job.PerRank // the other ranks ended with the first section
	}
	return m.Mesh().Cores()
}

// CheckGlobals, at rank 0's first bsp_begin of an MPI job whose section
// spans other ranks (nprocs cores), warns of the program's globals that
// main set after bsp_init (changed gives the ranges globals.c found,
// GlobalsWarning names them). A warning under EBSP_CHECKS=strict only:
// textbook programs set P and n there for pid 0 alone, rightly.
func CheckGlobals(lib Library, m *engine.Machine, nprocs int, changed func() [][2]uint64) {
	job, ok := spans(lib)
	if !ok || job.Rank != 0 || nprocs <= job.PerRank || m == nil || m.Checks() != engine.CheckStrict {
		return
	}
	if text := GlobalsWarning(changed()); text != "" {
		lib.Report(text)
	}
}

// BeginNested starts a section of n cores nested in a core of a running
// one, on the machine newMachine makes for it (the outer one's mesh), with
// its run started; its records describe the outer section's runs only.
func BeginNested(lib Library, n int, newMachine func() *engine.Machine) (*engine.Machine, error) {
	if _, ok := spans(lib); ok {
		return nil, fmt.Errorf("a nested SPMD section (bsp_init and bsp_begin inside a section) runs in one process only, not under mpirun")
	}
	memCfg, err := env.MemoryOf(lib.Getenv)
	if err != nil {
		return nil, err
	}
	m := newMachine()
	m.SetMemoryConfig(memCfg)
	if err := m.BeginStandard(n, Face); err != nil {
		return nil, err
	}
	if err := lib.NewCores(m, n); err != nil {
		m.EndStandard()
		return nil, err
	}
	lib.Configure(m)
	m.SetStats(false) // EBSP_STATS and EBSP_TRACE describe the outer section
	if err := m.StartRun(); err != nil {
		m.EndStandard()
		lib.FreeNewCores()
		return nil, err
	}
	return m, nil
}

// EndNested ends nested section m once every core left it: the report of
// its stop, "" when it ended well.
func EndNested(m *engine.Machine) string {
	if abort := m.EndStandard(); abort != nil {
		return abort.Report()
	}
	return ""
}
