package mpi

import (
	"fmt"
	"time"

	"libebsp/engine"
	"libebsp/env"
)

// Job is the MPI job this process is a rank of, when mpirun started the
// program with several ranks: its sections across the ranks and how the
// job ends. Rank 0 runs main; the other ranks run the SPMD function of the
// first section and end with it, after which rank 0 runs later sections
// alone. A job that stops ends on every rank with one report and one
// status, which mpirun names (mpi.c says why not MPI_Abort). Methods that
// say so do nothing on a nil Job: the process runs outside mpirun.
type Job struct {
	p     *Process
	hooks JobHooks
	// the running section's transport (nil between sections)
	section *World
	// rank 0 after the first section: the other ranks have ended
	alone bool
	// the ranks of the last section (0: rank 0 alone), which endJob tells
	sectionRanks int
	// another rank ends the job (it reports, and says so: EndArrived, or
	// every rank knows, as after rounds that diverged): this one ends
	// quietly with status 0
	endedElsewhere bool
	// an MPI call failed in a round: the job ends without MPI
	failed bool
}

// JobHooks are what the job needs of the library above it: its output,
// the process's exit and the C side's view of the section.
type JobHooks struct {
	// Complain prints an error line on stderr.
	Complain func(text string)
	// Flush writes out the library's buffered output.
	Flush func()
	// FlushStdio flushes every stdio stream of the program (fflush(NULL)).
	FlushStdio func()
	// Exit ends the process with code as C's exit does (its on_exit
	// handlers run: the world's calls Finalize).
	Exit func(code int)
	// SetSection tells the C side whether a section runs across the ranks
	// (its rounds then go through MPI).
	SetSection func(on bool)
	// LeaveRound is the round of a rank whose cores left the section
	// without bsp_end, at the superstep of core pid, waiting at most
	// seconds (0: until every rank is in a round): true when every rank is
	// in one of that kind (world_leave_round).
	LeaveRound func(pid, seconds int) bool
	// ReportDiverged reports, on rank 0, the deadlock of ranks whose cores
	// wait in different barriers, place telling where each core waits.
	ReportDiverged func(place func(pid int) (engine.Where, int))
}

// JoinJob starts MPI in this process, a rank of a job of several (mpirun),
// with the settings of get: the cores per rank (EBSP_RANK_CORES) and those
// of the tests. A setting it cannot use is complained of.
func JoinJob(get env.Getenv, hooks JobHooks) (*Job, error) {
	perRank, err := env.RankCoresOf(get)
	if err != nil {
		hooks.Complain(err.Error())
	}
	p, err := Join(perRank)
	if err != nil {
		return nil, err
	}
	test, err := env.MPITestOf(get)
	if err != nil {
		hooks.Complain(err.Error())
	}
	p.TestSettings(test.DelayRank, test.DelayMS, test.Trace, test.Window)
	block, err := env.MPIBlockOf(get)
	if err != nil {
		hooks.Complain(err.Error())
	}
	p.BlockLimit(block)
	return &Job{p: p, hooks: hooks}, nil
}

// Rank, Ranks and PerRank are this process's rank, the job's ranks and the
// cores each rank runs.
func (j *Job) Rank() int    { return j.p.Rank }
func (j *Job) Ranks() int   { return j.p.Ranks }
func (j *Job) PerRank() int { return j.p.PerRank }

// Cores is the number of cores of the whole job.
func (j *Job) Cores() int { return j.p.Cores() }

// Alone: rank 0 after the first section, the other ranks ended.
func (j *Job) Alone() bool { return j.alone }

// Spans tells whether the next section runs across the ranks (false on a
// nil Job).
func (j *Job) Spans() bool { return j != nil && !j.alone }

// JoinSection agrees with the other ranks on the section's core count
// (rank 0's) and makes the next run's transport the MPI world. A rank
// without cores in it ends here. On a nil Job, nprocs as it is.
func (j *Job) JoinSection(m *engine.Machine, nprocs int) (int, error) {
	if j == nil {
		return nprocs, nil
	}
	if j.alone {
		if nprocs > j.p.PerRank {
			return 0, fmt.Errorf("bsp_begin: %d cores: under mpirun the other ranks end with the first SPMD section (as with BSPonMPI), "+
				"so a later section has only the %d core(s) of rank 0 (%s)", nprocs, j.p.PerRank, env.RankCores)
		}
		m.UseTransport(nil)
		j.sectionRanks = 0
		return nprocs, nil
	}
	nprocs, err := j.p.Agree(nprocs)
	if err != nil {
		return 0, fmt.Errorf("bsp_begin: %v", err)
	}
	if _, count := j.p.Local(nprocs); count == 0 {
		j.endRank(0)
	}
	m.UseTransport(func(n int) engine.Transport {
		w, err := j.p.NewWorld(n, m.SyncFlags())
		if err != nil {
			j.hooks.Complain(fmt.Sprintf("bsp_begin: rank %d: %v", j.p.Rank, err))
			j.hooks.Flush()
			j.p.EndJob(1)
		}
		w.UsePlacement(m.Placement)
		j.section = w
		j.sectionRanks = w.Ranks()
		j.hooks.SetSection(true)
		return w
	})
	return nprocs, nil
}

// LeaveSection: the section is over; on rank 0 a later one runs alone.
// Nothing on a nil Job.
func (j *Job) LeaveSection() {
	if j != nil {
		j.closeSection()
		j.alone = true
	}
}

// closeSection forgets the running section, here and on the C side.
func (j *Job) closeSection() {
	j.section = nil
	j.hooks.SetSection(false)
}

// Local gives the pids this rank runs in the section of nprocs cores: all
// of them on a nil Job, and on rank 0 alone.
func (j *Job) Local(nprocs int) (first, count int) {
	if j == nil || j.alone {
		return 0, nprocs
	}
	return j.p.Local(nprocs)
}

// endRank ends this rank's process after its part of the job.
func (j *Job) endRank(code int) {
	j.hooks.Flush()
	j.p.Finalize()
	j.hooks.Exit(code)
}

// Refuse ends every rank of an EBSP host that mpirun started several
// times: the EBSP face runs in one process. Rank 0 says so and exits with
// status 1, the others with 0 (all finalize first), so that mpirun names
// rank 0 every time. Nothing on a nil Job.
func (j *Job) Refuse(call string) {
	if j == nil {
		return
	}
	if j.p.Rank == 0 {
		j.hooks.Complain(fmt.Sprintf("%s: mpirun started %d ranks of this EBSP host program; an EBSP host and its cores run in one process: "+
			"start it without mpirun (BSPlib programs, bsp.h, run across ranks)", call, j.p.Ranks))
		j.endRank(1)
	}
	j.EndQuietly()
}

// RoundFailed reports a round that failed (world.c): an MPI call, or the
// packing or unpacking of blocks.
func (j *Job) RoundFailed(unpacking bool) {
	what := "an MPI call failed"
	if err := j.section.Err(); unpacking && err != nil {
		what = err.Error()
	} else {
		j.failed = true // the job's end cannot count on MPI (endJob)
	}
	j.hooks.Complain(fmt.Sprintf("rank %d: %s", j.p.Rank, what))
}

// End ends a rank other than 0 after its section (code 0), or the job
// after a stopped section (code non-zero, endJob). Nothing on a nil Job.
func (j *Job) End(code int) {
	if j == nil {
		return
	}
	j.closeSection()
	if code != 0 {
		j.endJob(code)
	}
	j.endRank(0)
}

// endJob ends the job from this rank, whose section stopped (its report
// made): it tells the other ranks of the section, which stop where they
// wait for the others (world.c's hook) and say nothing more, all
// finalize, and this rank exits with code, the others with 0, so that
// mpirun names this rank and exits with code (mpi.c says why not
// MPI_Abort). A rank that another one ends quietly exits with 0.
func (j *Job) endJob(code int) {
	j.hooks.Flush()
	if j.failed {
		j.p.EndJob(code) // no MPI_Finalize, which might wait for ever: mpirun ends the others
	}
	if j.endedElsewhere || j.p.EndArrived() {
		j.EndQuietly()
	}
	j.p.AnnounceEnd(j.sectionRanks, code)
	j.endRank(code)
}

// endedWait bounds how long a rank that another one ends waits, after
// MPI_Finalize, for mpirun to end it.
const endedWait = 10 * time.Second

// EndQuietly ends a rank whose job another rank ends with a non-zero
// status: it finalizes and waits for mpirun, which ends it once that rank
// exited. Exiting with 0 instead made mpirun, over TCP, once in 100 runs
// report this rank "exiting improperly" (it had not taken its
// MPI_Finalize in yet), and not the status.
func (j *Job) EndQuietly() {
	j.hooks.Flush()
	j.p.Finalize()
	j.hooks.FlushStdio()
	time.Sleep(endedWait)
	j.hooks.Exit(0)
}

// Finalize ends MPI at the exit of a rank with status (on_exit, world.c):
// rank 0 before its first section lets the others end too. A rank whose
// section still runs (an exit before bsp_end) ends the job, whose other
// ranks would wait for its cores for ever: quietly, keeping status, when
// they all left the section too (rank 0, whose pid 0 may have returned
// from the SPMD function into main: the leave round); else as endJob
// does, with status (1 for 0: the other ranks' cores could not finish),
// the program's exit having said so (bsplib.c). A rank other than 0 exits
// so during its section only by a call of exit inside it: the return of
// its SPMD function is bsp_init's (Leave). Nothing on a nil Job.
func (j *Job) Finalize(status int) {
	if j == nil {
		return
	}
	if j.section != nil {
		j.hooks.Flush()
		first, _ := j.section.LocalRange()
		left := j.p.Rank == 0 && j.hooks.LeaveRound(first, leaveWait)
		j.closeSection()
		if !left {
			if !j.endedElsewhere && !j.p.EndArrived() {
				j.p.AnnounceEnd(j.sectionRanks, status)
			}
			j.p.Finalize()
			if status == 0 {
				j.p.EndJob(1) // finalized: exits with 1
			}
			return // the exit goes on with status
		}
	}
	j.p.EndWithoutSection()
	j.p.Finalize()
}

// leaveWait bounds rank 0's wait, at its exit, for the other ranks to
// leave their section too (a rank that computes on is ended).
const leaveWait = 1 // seconds

// Leave ends a rank other than 0 whose cores all returned from the SPMD
// function without bsp_end (pid is one of them): in one process that is
// no error until a core waits for such a core, and the program's exit
// ends it. The rank waits in a leave round until every rank is in one
// (rank 0 once its program exits), and they all end. When another rank's
// cores wait in a barrier instead, the round diverges: rank 0 reports the
// deadlock and ends the job.
func (j *Job) Leave(pid int) {
	if !j.hooks.LeaveRound(pid, 0) {
		j.Diverged() // rank 0 reports, and ends the job
		j.closeSection()
		j.EndQuietly()
	}
	j.End(0)
}

// Diverged reports, on rank 0, ranks whose cores wait in different
// barriers, as a deadlock of one process is; every rank saw the same
// headers, so the others end quietly while rank 0 ends the job (endJob).
func (j *Job) Diverged() {
	if j.p.Rank != 0 {
		j.endedElsewhere = true
		return
	}
	j.hooks.ReportDiverged(func(pid int) (engine.Where, int) {
		r := pid / j.p.PerRank
		return engine.Where(KindOf(r)), StepOf(r)
	})
}

// Each rank's watchdog fires when the job's cores make no progress: the
// other ranks send rank 0 where their cores are, so that it reports once
// for the job, as one process would; it waits placesWait for them. They
// wait reportGrace for it to end the job, then report alone (rank 0 may
// be stuck itself).
const (
	placesWait  = 2 * time.Second
	reportGrace = 10 * time.Second
)

// TimeoutPlaces is where the job's cores are for the report of a watchdog
// timeout, local telling where this rank's are: outside a section across
// the ranks (or on a nil Job), local itself. false when this rank says
// nothing: it is not rank 0, and rank 0 reported and ends the job.
func (j *Job) TimeoutPlaces(local func(pid int) (engine.Where, int)) (func(pid int) (engine.Where, int), bool) {
	if j == nil || j.section == nil {
		return local, true
	}
	if j.p.Rank != 0 && j.sentPlaces(local) {
		return nil, false
	}
	return j.jobPlaces(local), true
}

// sentPlaces sends rank 0, from another rank, where its cores are, and
// waits reportGrace for rank 0 to end the job: true when it did (this
// rank then says nothing).
func (j *Job) sentPlaces(local func(pid int) (engine.Where, int)) bool {
	first, n := j.section.LocalRange()
	places := make([]int32, 0, 2*n)
	for pid := first; pid < first+n; pid++ {
		w, step := local(pid)
		places = append(places, int32(w), int32(step))
	}
	if j.p.SendPlaces(places) != nil {
		return false
	}
	for end := time.Now().Add(reportGrace); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if j.p.EndArrived() {
			j.endedElsewhere = true
			return true
		}
	}
	return false
}

// jobPlaces is where the cores of the job are, on rank 0: those of other
// ranks as they sent them (else local's, "on other MPI ranks"); on another
// rank (rank 0 did not end the job) its own.
func (j *Job) jobPlaces(local func(pid int) (engine.Where, int)) func(pid int) (engine.Where, int) {
	if j.p.Rank != 0 {
		return local
	}
	sent := j.p.ReceivePlaces(placesWait)
	return func(pid int) (engine.Where, int) {
		r := pid / j.p.PerRank
		if i := 2 * (pid - r*j.p.PerRank); r != j.p.Rank && i+1 < len(sent[r]) {
			return engine.Where(sent[r][i]), int(sent[r][i+1])
		}
		return local(pid)
	}
}
